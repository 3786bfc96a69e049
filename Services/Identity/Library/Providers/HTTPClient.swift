import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An HTTP response as identity needs it: status, headers (names lower-cased) and a bounded body.
struct HTTPResponse: Sendable {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]
}

/// The two HTTP calls identity makes: GET a provider's JWKS, POST to the mail webhook.
protocol HTTPClient: Sendable {
    func get(_ url: URL, timeout: Duration, maxBodyBytes: Int) async throws -> HTTPResponse
    func post(_ url: URL, body: [UInt8], headers: [String: String], timeout: Duration) async throws -> HTTPResponse
}

/// `HTTPClient` on Foundation's URLSession (libcurl on Linux, so HTTPS works with the system's CA store).
/// No cache, no cookies, redirects followed by URLSession's defaults.
final class URLSessionHTTPClient: HTTPClient {
    private let session: URLSession

    init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        session = URLSession(configuration: configuration)
    }

    func get(_ url: URL, timeout: Duration, maxBodyBytes: Int) async throws -> HTTPResponse {
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
        request.timeoutInterval = timeout.timeInterval
        let response = try await perform(request)
        guard response.body.count <= maxBodyBytes else {
            throw HTTPClientError("the response from \(url.host ?? "?") is larger than \(maxBodyBytes) bytes")
        }
        return response
    }

    func post(_ url: URL, body: [UInt8], headers: [String: String], timeout: Duration) async throws -> HTTPResponse {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.timeoutInterval = timeout.timeInterval
        request.httpBody = Data(body)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return try await perform(request)
    }

    /// Cancels what is in flight; later calls fail.
    func close() {
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

struct HTTPClientError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
