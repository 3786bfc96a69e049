public import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An HTTP response as Foyer's services need it: status, headers (names lower-cased) and a bounded body.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// The two HTTP calls the services make: GET (a provider's JWKS), POST (webhooks, the mail webhook, the app's
/// merge and delete hooks).
public protocol HTTPClient: Sendable {
    func get(_ url: URL, timeout: Duration, maxBodyBytes: Int) async throws -> HTTPResponse
    func post(_ url: URL, body: [UInt8], headers: [String: String], timeout: Duration) async throws -> HTTPResponse
}

/// `HTTPClient` on Foundation's URLSession (libcurl on Linux, so HTTPS works with the system's CA store).
/// No cache, no cookies, redirects followed by URLSession's defaults.
public final class URLSessionHTTPClient: HTTPClient {
    private let session: URLSession

    public init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        session = URLSession(configuration: configuration)
    }

    public func get(_ url: URL, timeout: Duration, maxBodyBytes: Int) async throws -> HTTPResponse {
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
        request.timeoutInterval = Self.seconds(timeout)
        let response = try await perform(request)
        guard response.body.count <= maxBodyBytes else {
            throw HTTPClientError("the response from \(url.host ?? "?") is larger than \(maxBodyBytes) bytes")
        }
        return response
    }

    public func post(
        _ url: URL,
        body: [UInt8],
        headers: [String: String],
        timeout: Duration
    ) async throws -> HTTPResponse {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.timeoutInterval = Self.seconds(timeout)
        request.httpBody = Data(body)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return try await perform(request)
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        TimeInterval(duration.components.seconds) + TimeInterval(duration.components.attoseconds) / 1e18
    }

    /// Cancels what is in flight; later calls fail.
    public func close() {
        session.invalidateAndCancel()
    }

    private func perform(_ request: URLRequest) async throws -> HTTPResponse {
        let box = TaskBox()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, any Error>) in
                let task = session.dataTask(with: request) { data, response, error in
                    if let error { return continuation.resume(throwing: HTTPClientError("\(error)")) }
                    guard let response = response as? HTTPURLResponse else {
                        return continuation.resume(throwing: HTTPClientError("not an HTTP response"))
                    }
                    var headers: [String: String] = [:]
                    for (name, value) in response.allHeaderFields {
                        headers[String(describing: name).lowercased()] = String(describing: value)
                    }
                    continuation.resume(
                        returning: HTTPResponse(
                            status: response.statusCode,
                            headers: headers,
                            body: Array(data ?? Data())
                        )
                    )
                }
                box.set(task)
                task.resume()
            }
        } onCancel: {
            box.cancel()
        }
    }
}

/// Holds the data task so a task cancellation can cancel it.
private final class TaskBox: @unchecked Sendable {  // guarded by `lock`
    private let lock = NSLock()
    private var task: URLSessionDataTask?
    private var cancelled = false

    func set(_ task: URLSessionDataTask) {
        let cancelNow = lock.withLock {
            self.task = task
            return cancelled
        }
        if cancelNow { task.cancel() }
    }

    func cancel() {
        let task = lock.withLock {
            cancelled = true
            return self.task
        }
        task?.cancel()
    }
}

public struct HTTPClientError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
