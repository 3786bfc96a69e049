public import Foundation
public import FoyerJSON

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A client of the gateway's admin API (`/admin/v1` on the admin listener; docs/admin-openapi.yaml): each call
/// sends the admin key as `Authorization: Bearer` and answers the JSON the API answers. A problem answer throws the
/// `FoyerError` of its status name (`unauthenticated`, `user-not-found`, ...).
///
/// No call is retried: an admin action (a deletion, a key rotation) is for the operator to repeat, after reading
/// the audit log if the outcome is unknown.
public final class FoyerAdminClient: Sendable {
    private let baseURL: String
    private let key: String
    private let session: URLSession
    private let exchanges: HTTPExchanges
    private let callTimeout: Duration

    /// - Parameters:
    ///   - baseURL: the admin listener (`http://10.0.0.5:7480`).
    ///   - key: an admin key (`foyer_admin_...`).
    public init(baseURL: URL, key: String, callTimeout: Duration = .seconds(60)) {
        let text = baseURL.absoluteString
        self.baseURL = text.hasSuffix("/") ? String(text.dropLast()) : text
        self.key = key
        self.callTimeout = callTimeout
        exchanges = HTTPExchanges(byteCountMax: 16 << 20, trust: nil)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = max(1, Double(callTimeout.components.seconds))
        session = URLSession(configuration: configuration, delegate: exchanges, delegateQueue: nil)
    }

    /// Sends `verb` to `path` (below the base address, with its query) with `body`'s members as a JSON object, and
    /// answers the JSON text of a 2xx answer.
    public func call(
        _ verb: String,
        _ path: String,
        body: [String: JSONValue]? = nil
    ) async throws(FoyerError)
        -> [UInt8]
    {
        guard let url = URL(string: baseURL + path) else { throw .invalidInput("'\(baseURL + path)' is not a URL") }
        var request = URLRequest(url: url)
        request.httpMethod = verb
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization")
        if let body {
            request.httpBody = Data(JSONValue.object(body).bytes)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let deadline = ContinuousClock.now + callTimeout
        let answer: HTTPAnswer
        do {
            answer = try await exchanges.run(session.dataTask(with: request), deadline: deadline)
        } catch let error as HTTPAnswerTooLarge {
            throw FoyerError(status: .internal, message: "the answer is larger than \(error.byteCountMax) bytes")
        } catch {
            throw HTTPGatewayTransport.transportError(error, timedOut: ContinuousClock.now >= deadline)
        }
        guard (200..<300).contains(answer.status) else {
            throw FoyerError(
                problem: JSONValue.parse(answer.body),
                httpStatus: answer.status,
                retryAfterHeader: answer.headers["retry-after"]
            )
        }
        guard JSONValue.parse(answer.body) != nil else {
            throw FoyerError(status: .internal, message: "the admin API answered no JSON")
        }
        return answer.body
    }

    /// Ends the client's connections.
    public func shutdown() {
        session.finishTasksAndInvalidate()
    }

    /// `path` with `query`'s pairs (those with a value) percent-encoded after `?`.
    public static func path(_ path: String, query: [(String, String?)]) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+?#")
        let pairs = query.compactMap { name, value in
            value.map { "\(name)=\($0.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0)" }
        }
        return pairs.isEmpty ? path : path + "?" + pairs.joined(separator: "&")
    }

    /// `segment` percent-encoded for use as one path segment.
    public static func segment(_ segment: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#")
        return segment.addingPercentEncoding(withAllowedCharacters: allowed) ?? segment
    }
}
