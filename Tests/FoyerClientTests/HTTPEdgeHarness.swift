import Foundation
import FoyerJSON
import FoyerTestSupport
import Testing

@testable import FoyerGatewayHTTP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The in-process stack with the gateway's HTTP listener on a free port beside it, driven by a plain HTTP client
/// (URLSession), not Foyer's.
struct HTTPEdge: Sendable {
    let stack: Stack
    let baseURL: String

    /// One answer: its status, headers (lower-cased names) and body parsed as JSON when it is.
    struct Answer: Sendable {
        let status: Int
        let headers: [String: String]
        let json: JSONValue?

        subscript(_ name: String) -> JSONValue? { json?[name] }
        func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    /// Sends one request; `json` is sent as the body (`Content-Type: application/json`), `rawBody` as it is.
    func send(
        _ method: String,
        _ path: String,
        token: String? = nil,
        idempotencyKey: String? = nil,
        headers: [String: String] = [:],
        json: JSONValue? = nil,
        rawBody: Data? = nil
    ) async throws -> Answer {
        var request = URLRequest(url: try #require(URL(string: baseURL + path)))
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let idempotencyKey { request.setValue(idempotencyKey, forHTTPHeaderField: "Idempotency-Key") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let json {
            request.httpBody = Data(json.bytes)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        } else if let rawBody {
            request.httpBody = rawBody
        }
        let (data, response) = try await Self.exchange(request)
        let http = try #require(response as? HTTPURLResponse)
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
        }
        return Answer(status: http.statusCode, headers: fields, json: JSONValue.parse([UInt8](data)))
    }

    private static let session = URLSession(configuration: .ephemeral)

    private static func exchange(_ request: URLRequest) async throws -> (Data, URLResponse) {
        try await withCheckedThrowingContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                if let error {
                    continuation.resume(throwing: error)
                } else if let response {
                    continuation.resume(returning: (data ?? Data(), response))
                } else {
                    continuation.resume(throwing: URLError(.badServerResponse))
                }
            }
            .resume()
        }
    }
}

/// Runs `body` with the stack and its HTTP listener started, and stops both afterwards.
func withHTTPEdge<T: Sendable>(
    options: StackOptions = StackOptions(),
    adjust: @Sendable (inout GatewayHTTPConfiguration) -> Void = { _ in },
    _ body: (HTTPEdge) async throws -> T
) async throws -> T {
    try await withStack(options: options) { stack in
        var configuration = GatewayHTTPConfiguration()
        adjust(&configuration)
        let server = try GatewayHTTPServer(
            gateway: stack.gateway,
            configuration: configuration,
            logger: TestLogging.logger("foyer.test.gateway.http")
        )
        return try await withThrowingTaskGroup(of: Void.self) { group in
            defer { group.cancelAll() }
            group.addTask { try await server.run() }
            let port = try await server.boundPort()
            return try await body(HTTPEdge(stack: stack, baseURL: "http://127.0.0.1:\(port)"))
        }
    }
}

/// A guest key as guestSignIn's Idempotency-Key wants it: 22 or more base64url characters of 128 random bits.
func guestKey() -> String {
    Base64URL.encode((0..<16).map { _ in UInt8.random(in: 0...255) })
}

extension JSONValue {
    subscript(_ name: String) -> JSONValue? {
        if case .object(let members) = self { members[name] } else { nil }
    }

    var string: String? { if case .string(let value) = self { value } else { nil } }
    var int: Int64? { if case .int(let value) = self { value } else { nil } }
    var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    var array: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
}
