import FoyerWire
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL

/// A small set of connections to one upstream.
///
/// Calls go to the open connection with the fewest calls pending; a new connection is opened while all are
/// at their in-flight limit and the pool is below `connectionsMax`. After failed attempts, the next one waits
/// for a jittered, doubling backoff, so a restarting upstream is not hammered by every caller at once.
final class ConnectionPool: Sendable {
    private struct State {
        var connections: [ClientConnection] = []
        var connecting: [EventLoopFuture<ClientConnection>] = []
        var consecutiveFailures = 0
        var nextAttempt = NIODeadline.uptimeNanoseconds(0)
        var lastError: RPCError?
        var closed = false
    }

    private enum Decision {
        case use(ClientConnection)
        case connect(EventLoopPromise<ClientConnection>)
        case await(EventLoopFuture<ClientConnection>)
        case wait(until: NIODeadline, lastError: RPCError?)
        case fail(RPCError)
    }

    private let configuration: RPCClientConfiguration
    private let authenticator: HandshakeAuthenticator?
    /// The TLS context every new connection takes the current state of (built once, unless the configuration hands
    /// over a reloadable one); its error fails every connection attempt.
    private let tls: Result<ReloadableTLSContext, RPCError>?
    private let eventLoopGroup: any EventLoopGroup
    private let logger: Logger
    private let state = NIOLockedValueBox(State())

    init(configuration: RPCClientConfiguration, eventLoopGroup: any EventLoopGroup, logger: Logger) {
        self.configuration = configuration
        self.authenticator = configuration.clusterSecret.map { HandshakeAuthenticator(secret: $0) }
        self.tls = configuration.tls.map { tls in
            Result { try tls.reloadable ?? tls.makeReloadableContext() }.mapError {
                $0 as? RPCError ?? RPCError(.invalidArgument, "\($0)")
            }
        }
        self.eventLoopGroup = eventLoopGroup
        self.logger = logger
    }

    /// A connection to send a call on, opening one if needed, before `deadline`.
    func connection(deadline: NIODeadline) async throws -> ClientConnection {
        while true {
            switch decide(now: .now()) {
            case .use(let connection):
                return connection
            case .connect(let promise):
                return try await connect(fulfilling: promise)
            case .await(let future):
                return try await future.get()
            case .wait(let until, let lastError):
                guard until < deadline else {
                    throw RPCError(
                        .unavailable,
                        "\(configuration.serviceName) is unreachable: \(lastError?.message ?? "connection failed")"
                    )
                }
                try await Task.sleep(for: .nanoseconds((until - .now()).nanoseconds))
            case .fail(let error):
                throw error
            }
        }
    }

    private func decide(now: NIODeadline) -> Decision {
        state.withLockedValue { state in
            if state.closed { return .fail(RPCError(.unavailable, "the client is shut down")) }
            state.connections.removeAll { !$0.gauge.isOpen }
            let best = state.connections.min { $0.gauge.pending < $1.gauge.pending }
            let total = state.connections.count + state.connecting.count
            if let best, best.gauge.pending < best.maxInFlight || total >= configuration.connectionsMax {
                return .use(best)
            }
            if total < configuration.connectionsMax {
                if now >= state.nextAttempt {
                    let promise = eventLoopGroup.any().makePromise(of: ClientConnection.self)
                    state.connecting.append(promise.futureResult)
                    return .connect(promise)
                }
                if let best { return .use(best) }
                if let pending = state.connecting.first { return .await(pending) }
                return .wait(until: state.nextAttempt, lastError: state.lastError)
            }
            return .await(state.connecting.first!)
        }
    }

    private func connect(fulfilling promise: EventLoopPromise<ClientConnection>) async throws -> ClientConnection {
        do {
            let connection = try await ClientConnection.connect(
                configuration: configuration,
                authenticator: authenticator,
                tls: try tls?.get().current,
                eventLoop: promise.futureResult.eventLoop
            )
            let closed = state.withLockedValue { state in
                state.connecting.removeAll { $0 === promise.futureResult }
                state.consecutiveFailures = 0
                state.lastError = nil
                if !state.closed { state.connections.append(connection) }
                return state.closed
            }
            if closed { connection.closeGracefully() }
            promise.succeed(connection)
            return connection
        } catch {
            let rpcError = error as? RPCError ?? RPCError(.unavailable, "\(error)")
            state.withLockedValue { state in
                state.connecting.removeAll { $0 === promise.futureResult }
                state.consecutiveFailures += 1
                state.lastError = rpcError
                state.nextAttempt =
                    .now()
                    + Backoff.jittered(
                        attempt: state.consecutiveFailures,
                        base: configuration.reconnectBackoffBase,
                        max: configuration.reconnectBackoffMax
                    )
            }
            logger.debug(
                "connect failed",
                metadata: ["upstream": "\(configuration.serviceName)", "error": "\(rpcError)"]
            )
            promise.fail(rpcError)
            throw rpcError
        }
    }

    /// The connections the pool holds now (some may be closing).
    var connections: [ClientConnection] { state.withLockedValue { $0.connections } }

    /// Closes every connection once the answers its callers wait for are in; later calls fail `unavailable`.
    func close() async {
        let connections = state.withLockedValue { state in
            state.closed = true
            return state.connections
        }
        for connection in connections { connection.closeGracefully() }
        for connection in connections { try? await connection.closeFuture.get() }
    }
}

/// Exponential backoff with full jitter: a random pause between zero and `base * 2^(attempt-1)`, capped.
enum Backoff {
    static func jittered(attempt: Int, base: TimeAmount, max: TimeAmount) -> TimeAmount {
        let exponent = Swift.min(Swift.max(attempt - 1, 0), 30)
        let ceiling = Swift.min(
            base.nanoseconds.multipliedReportingOverflow(by: 1 << exponent).partialValue,
            max.nanoseconds
        )
        return .nanoseconds(Int64.random(in: 0...Swift.max(ceiling, 0)))
    }
}
