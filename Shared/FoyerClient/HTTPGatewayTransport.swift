import Foundation
import FoyerAPI
import FoyerJSON
import FoyerWire
import Logging

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The gateway's HTTP edge through URLSession (system TLS, proxies and trust on Apple platforms): each gateway
/// method as its route of docs/openapi.yaml, JSON both ways, problem+json answers as the same `FoyerError`s the
/// binary protocol gives.
///
/// Retries follow the binary client's rule: a call is sent again, up to `maxAttempts` and within `callTimeout`,
/// when its answer says it was not processed (`unavailable`, `overloaded`, ...), or its outcome is unknown (the
/// connection broke before an answer, a 500) and the method is idempotent (every gateway method that changes
/// something carries an idempotency key or operation id, so a resend is safe). It waits a jittered backoff, or
/// the server's retry-after hint if longer.
final class HTTPGatewayTransport: GatewayTransport {
    private let baseURL: String
    private let session: URLSession
    private let exchanges: HTTPExchanges
    private let callTimeout: Duration
    private let maxAttempts: Int
    private let logger: Logger
    /// Why every call fails (a CA file this platform cannot honour), if it does.
    private let setupError: FoyerError?
    private let state = ShutdownFlag()

    init(configuration: FoyerClientConfiguration, baseURL: URL, logger: Logger) {
        var trust: PrivateCATrust?
        var setupError: FoyerError?
        if let caFile = configuration.tls?.caFile {
            do throws(FoyerError) {
                trust = try PrivateCATrust(pemFile: caFile)
            } catch {
                setupError = error
            }
        }
        self.baseURL =
            baseURL.absoluteString.hasSuffix("/") ? String(baseURL.absoluteString.dropLast()) : baseURL.absoluteString
        self.exchanges = HTTPExchanges(byteCountMax: max(1024, configuration.httpResponseByteCountMax), trust: trust)
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.httpMaximumConnectionsPerHost = max(configuration.connectionsMax, 6)
        sessionConfiguration.timeoutIntervalForRequest = Self.seconds(configuration.callTimeout)
        sessionConfiguration.httpShouldSetCookies = false
        sessionConfiguration.urlCache = nil
        self.session = URLSession(configuration: sessionConfiguration, delegate: exchanges, delegateQueue: nil)
        self.callTimeout = configuration.callTimeout
        self.maxAttempts = max(1, configuration.maxAttempts)
        self.logger = logger
        self.setupError = setupError
    }

    func call<Request, Response>(
        _ method: RPCMethod<Request, Response>,
        _ request: Request
    ) async throws(FoyerError) -> Response {
        if let setupError { throw setupError }
        let route = try HTTPGatewayRequest(method.id, request)
        let deadline = ContinuousClock.now + callTimeout
        var attempt = 1
        while true {
            do throws(FoyerError) {
                let answer = try await send(route, deadline: deadline)
                guard let response = try Self.response(method.id, answer) as? Response else {
                    throw FoyerError(status: .internal, message: "the HTTP answer to \(method.name) has another type")
                }
                return response
            } catch {
                guard attempt < maxAttempts, let status = error.status,
                    status.allowsRetry(idempotent: method.isIdempotent)
                else { throw error }
                let backoff = max(Self.jitteredBackoff(attempt: attempt), error.retryAfter ?? .zero)
                guard ContinuousClock.now + backoff < deadline else { throw error }
                attempt += 1
                logger.debug(
                    "retrying call",
                    metadata: ["http.method": "\(method.name)", "http.attempt": "\(attempt)", "error": "\(error)"]
                )
                do {
                    try await Task.sleep(for: backoff)
                } catch {
                    throw FoyerError(status: .cancelled, message: "cancelled")
                }
            }
        }
    }

    func shutdown() async {
        guard state.shutDown() else { return }
        session.finishTasksAndInvalidate()
    }

    /// One attempt: the request sent, its answer read (up to the size cap), within what is left of `deadline`.
    private func send(
        _ route: HTTPGatewayRequest,
        deadline: ContinuousClock.Instant
    ) async throws(FoyerError) -> HTTPAnswer {
        guard let url = URL(string: baseURL + route.path) else {
            throw .invalidInput("'\(baseURL + route.path)' is not a URL")
        }
        var request = URLRequest(url: url)
        request.httpMethod = route.verb
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let token = route.bearerToken { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let key = route.idempotencyKey { request.setValue(key, forHTTPHeaderField: "Idempotency-Key") }
        if let source = route.forwardedFor { request.setValue(source, forHTTPHeaderField: "X-Forwarded-For") }
        if let body = route.body {
            request.httpBody = Data(body.bytes)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let left = ContinuousClock.now.duration(to: deadline)
        guard left > .zero else { throw FoyerError(status: .deadlineExceeded, message: "the call timed out") }
        // The watchdog in `exchanges.run` ends the attempt at the deadline; URLSession's own timeout (between two
        // reads) is whole seconds on Linux, where a fraction under one fails the request at once.
        request.timeoutInterval = max(1, Self.seconds(left).rounded(.up))
        let task: URLSessionDataTask
        do {
            task = try state.whileOpen { session.dataTask(with: request) }
        } catch {
            throw FoyerError(status: .unavailable, message: "the client is shut down")
        }
        do {
            return try await exchanges.run(task, deadline: deadline)
        } catch let error as HTTPAnswerTooLarge {
            throw FoyerError(status: .internal, message: "the answer is larger than \(error.byteCountMax) bytes")
        } catch {
            throw Self.transportError(error, timedOut: ContinuousClock.now >= deadline)
        }
    }

    /// The method's response from a 2xx answer, or the `FoyerError` of a problem.
    private static func response(_ methodID: UInt16, _ answer: HTTPAnswer) throws(FoyerError) -> any WireMessage {
        let json = JSONValue.parse(answer.body)
        // A merge or deletion that waits on the app answers 202 with the members of a problem: the same call again
        // continues it (`operation-in-progress`). Other 202s (an email sent) are answers.
        var inProgress = false
        if answer.status == 202, case .object(let members)? = json, members["code"] == "operation-in-progress" {
            inProgress = true
        }
        if (200..<300).contains(answer.status), !inProgress {
            return try HTTPGatewayAnswer.decode(methodID, json ?? [:])
        }
        let error = FoyerError(
            problem: json,
            httpStatus: answer.status,
            retryAfterHeader: answer.headers["retry-after"]
        )
        // No such document is an answer, not an error, over the binary protocol.
        if methodID == GatewayMethods.getDocument.id, answer.status == 404, error == .notFound {
            return GetDocumentResponse(document: nil)
        }
        throw error
    }

    /// A failure before an answer: `unavailable` when nothing can have reached the server, else
    /// `connectionLost` (the outcome is unknown), `deadlineExceeded` past the deadline, `cancelled`.
    static func transportError(_ error: any Error, timedOut: Bool) -> FoyerError {
        if error is CancellationError { return FoyerError(status: .cancelled, message: "cancelled") }
        guard let urlError = error as? URLError else {
            return FoyerError(status: .connectionLost, message: "\(error)")
        }
        if timedOut || urlError.code == .timedOut {
            return FoyerError(status: .deadlineExceeded, message: "the call timed out")
        }
        switch urlError.code {
        case .cancelled:
            return FoyerError(status: .cancelled, message: "cancelled")
        case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet, .badURL,
            .unsupportedURL, .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
            .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid, .clientCertificateRejected:
            return FoyerError(status: .unavailable, message: urlError.localizedDescription)
        default:
            return FoyerError(
                status: .connectionLost,
                message: "\(urlError.code.rawValue): \(urlError.localizedDescription)"
            )
        }
    }

    /// 25 ms doubled per attempt, at most 1 s, jittered (as the binary client).
    private static func jitteredBackoff(attempt: Int) -> Duration {
        let ceiling = min(25 << min(attempt - 1, 10), 1000)
        return .milliseconds(Int.random(in: 0...ceiling))
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}

/// Whether the transport is shut down: no task is made on an invalidated session (which Apple's URLSession
/// answers with an exception).
private final class ShutdownFlag: @unchecked Sendable {  // `isShutDown` is guarded by `lock`
    private let lock = NSLock()
    private var isShutDown = false

    /// Marks the transport shut down; false if it already was.
    func shutDown() -> Bool {
        lock.withLock {
            defer { isShutDown = true }
            return !isShutDown
        }
    }

    /// Runs `body` while not shut down, else throws.
    func whileOpen<T>(_ body: () -> T) throws -> T {
        try lock.withLock {
            guard !isShutDown else { throw CancellationError() }
            return body()
        }
    }
}
