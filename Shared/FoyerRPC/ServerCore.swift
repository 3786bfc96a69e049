import Atomics
import CoreMetrics
import FoyerWire
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// What every connection of a server shares.
final class ServerCore: Sendable {
    let configuration: RPCServerConfiguration
    let router: RPCRouter
    let authenticator: HandshakeAuthenticator?
    let requestPermits: AsyncSemaphore
    let logger: Logger
    /// Connections held, in all and per source, from the TCP accept until the close.
    let connections: ConnectionTable
    let connectionRefusals: WarningRateLimiter
    let handshakeRefusals: WarningRateLimiter
    /// Where calls and connections are recorded.
    let metrics: RPCMetrics
    let tracing: RPCTracing
    /// The open connections, from the accept to the close.
    private let openConnections: Meter
    private let drain: DrainFlag

    init(
        configuration: RPCServerConfiguration,
        router: RPCRouter,
        drain: DrainFlag,
        logger: Logger,
        eventLoop: any EventLoop
    ) {
        self.configuration = configuration
        self.router = router
        self.authenticator = configuration.clusterSecret.map {
            HandshakeAuthenticator(secret: $0, allowedSkew: configuration.authenticationSkew)
        }
        self.requestPermits = AsyncSemaphore(permits: configuration.maxConcurrentRequests)
        self.connections = ConnectionTable(
            admission: ConnectionAdmission(
                maxConnections: configuration.maxConnections,
                maxConnectionsPerSource: configuration.maxConnectionsPerSource,
                maxConnectionsPerNetwork: configuration.maxConnectionsPerNetwork
            )
        )
        func limiter(_ message: Logger.Message) -> WarningRateLimiter {
            WarningRateLimiter(
                message,
                limit: configuration.refusalWarningsMax,
                interval: configuration.refusalWarningsInterval,
                logger: logger,
                eventLoop: eventLoop
            )
        }
        self.connectionRefusals = limiter("connection refused")
        self.handshakeRefusals = limiter("handshake refused")
        self.drain = drain
        self.logger = logger
        self.metrics = configuration.metrics ?? .process
        self.tracing = configuration.tracing ?? .process
        self.openConnections = metrics.connections(service: configuration.serviceName)
    }

    var isDraining: Bool { drain.isSet }
    func markDraining() { drain.set() }

    /// Admits a connection just accepted, counted against the socket's peer unless that is a trusted proxy (whose
    /// connections count against the client their PROXY header names, once it has arrived), or says why not. The
    /// place is given back when the channel closes. When the server is full, a connection of the heaviest source
    /// may be closed to make room (``ConnectionAdmission``).
    func admit(_ channel: any Channel, fromTrustedProxy: Bool) -> ConnectionAdmission.Refusal? {
        let source = fromTrustedProxy ? nil : IPNetwork.connectionSource(of: channel.remoteAddress)
        if let refusal = connections.admit(channel, source: source) { return refusal }
        openConnections.increment()
        channel.closeFuture.whenComplete { _ in
            self.connections.release(channel)
            self.openConnections.decrement()
        }
        return nil
    }

    /// Counts a proxied connection against the client its PROXY header names; `false` if that source is full.
    func admitProxiedClient(_ channel: any Channel, address: SocketAddress, proxy: SocketAddress?) -> Bool {
        guard let source = IPNetwork.connectionSource(of: address) else { return true }
        guard connections.move(channel, to: source) else {
            warnRefused(.sourceFull(source), peer: address, proxy: proxy)
            return false
        }
        return true
    }

    /// Logs a refused connection (rate-limited).
    func warnRefused(_ refusal: ConnectionAdmission.Refusal, peer: SocketAddress?, proxy: SocketAddress? = nil) {
        connectionRefusals.warn(
            metadata: [
                "reason": "\(refusal.reason)",
                "peer.address": "\(peer?.description ?? "?")",
                "proxy.address": "\(proxy?.description ?? "none")",
            ]
        )
    }
}

extension ConnectionAdmission.Refusal {
    /// For the log.
    var reason: String {
        switch self {
        case .serverFull: "too many connections"
        case .sourceFull(let source): "too many connections from \(source)"
        }
    }

    /// For the peer: GOAWAY `too-many-connections`.
    var goAway: Frame {
        let message =
            switch self {
            case .serverFull: "too many connections"
            case .sourceFull: "too many connections from your address"
            }
        return Frame.goAway(reason: .tooManyConnections, body: GoAwayBody(message: message).encoded())
    }
}

/// Set once, when the server starts draining.
final class DrainFlag: Sendable {
    private let flag = ManagedAtomic<Bool>(false)
    var isSet: Bool { flag.load(ordering: .acquiring) }
    func set() { flag.store(true, ordering: .releasing) }
}
