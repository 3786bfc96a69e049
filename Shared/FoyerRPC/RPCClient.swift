public import FoyerWire
public import Logging
public import NIOCore
public import NIOPosix
public import ServiceLifecycle

/// Calls one upstream service: a pool of connections, deadlines, and retries where they are safe.
///
/// A call is retried, up to `maxAttempts` and only while its deadline leaves time, when its status says the
/// request was not processed, or its outcome is unknown and the call is idempotent. Between attempts it waits
/// a jittered backoff, or the server's retry-after hint if that is longer.
///
/// Run it in a `ServiceGroup` (or call `shutdown()`): on graceful shutdown it lets calls in flight finish and
/// closes its connections.
public final class RPCClient: Service, Sendable {
    public let configuration: RPCClientConfiguration
    let pool: ConnectionPool
    private let logger: Logger
    private let metrics: RPCMetrics
    private let tracing: RPCTracing

    public init(
        configuration: RPCClientConfiguration,
        logger: Logger,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.configuration = configuration
        self.logger = logger
        self.metrics = configuration.metrics ?? .process
        self.tracing = configuration.tracing ?? .process
        self.pool = ConnectionPool(configuration: configuration, eventLoopGroup: eventLoopGroup, logger: logger)
    }

    /// Calls `method` with `request`, and records the call with its outcome after the last attempt
    /// (``RPCMetrics``); inside a client span for the call, its attempts included, when a span is current
    /// (``RPCTracing``).
    ///
    /// - Throws: `RPCError` with the server's status, or a client-side one: `unavailable` (could not reach the
    ///   service; nothing was sent), `connectionLost` (the connection broke after sending), `deadlineExceeded`,
    ///   `cancelled`.
    public func call<Request, Response>(
        _ method: RPCMethod<Request, Response>,
        _ request: Request,
        options: CallOptions = CallOptions()
    ) async throws -> Response {
        let started = ContinuousClock.now
        do {
            let response = try await tracing.withClientSpan(method: method.name, service: configuration.serviceName) {
                traceContext in try await attempt(method, request, options: options, traceContext: traceContext)
            }
            record(method.name, status: nil, since: started)
            return response
        } catch {
            record(method.name, status: (error as? RPCError)?.status ?? .internal, since: started)
            throw error
        }
    }

    private func record(_ method: String, status: RPCStatus?, since started: ContinuousClock.Instant) {
        metrics.called(
            upstream: configuration.serviceName,
            method: method,
            status: status,
            duration: ContinuousClock.now - started
        )
    }

    /// ``call(_:_:options:)`` without the recording: the attempts and the backoff between them.
    private func attempt<Request, Response>(
        _ method: RPCMethod<Request, Response>,
        _ request: Request,
        options: CallOptions,
        traceContext: TraceContext?
    ) async throws -> Response {
        let deadline = options.deadline ?? .now() + (options.timeout ?? configuration.defaultCallTimeout)
        let idempotent = options.idempotent ?? method.isIdempotent
        let body = request.encoded()
        var attempt = 1
        while true {
            do {
                let connection = try await pool.connection(deadline: deadline)
                let answer = try await connection.call(
                    method: method.id,
                    body: body,
                    idempotent: idempotent,
                    deadline: deadline,
                    traceContext: traceContext
                )
                do {
                    return try Response(decoding: answer)
                } catch {
                    throw RPCError(.internal, "unreadable answer to \(method.name): \(error)")
                }
            } catch {
                let error = Self.rpcError(error)
                guard attempt < configuration.maxAttempts, error.status.allowsRetry(idempotent: idempotent) else {
                    throw error
                }
                let backoff = max(
                    Backoff.jittered(
                        attempt: attempt,
                        base: configuration.retryBackoffBase,
                        max: configuration.retryBackoffMax
                    ),
                    .milliseconds(Int64(error.retryAfterMilliseconds))
                )
                guard NIODeadline.now() + backoff < deadline else { throw error }
                attempt += 1
                logger.debug(
                    "retrying call",
                    metadata: ["rpc.method": "\(method.name)", "rpc.attempt": "\(attempt)", "error": "\(error)"]
                )
                do {
                    try await Task.sleep(for: .nanoseconds(backoff.nanoseconds))
                } catch {
                    throw RPCError.cancelled()
                }
            }
        }
    }

    private static func rpcError(_ error: any Error) -> RPCError {
        switch error {
        case let error as RPCError: error
        case is CancellationError: .cancelled()
        default: RPCError(.unavailable, "\(error)")
        }
    }

    public func run() async throws {
        try? await gracefulShutdown()
        await shutdown()
    }

    /// Lets calls in flight finish, then closes every connection. Later calls fail `unavailable`.
    public func shutdown() async {
        await pool.close()
    }
}
