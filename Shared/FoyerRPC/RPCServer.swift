import Atomics
import FoyerWire
public import Logging
import NIOConcurrencyHelpers
public import NIOCore
public import NIOPosix
import NIOSSL
public import ServiceLifecycle

/// A Foyer RPC server: hosts the handlers of an `RPCRouter` on a TCP port.
///
/// Run it in a `ServiceGroup`. On graceful shutdown it stops accepting, sends GOAWAY on every connection,
/// answers the requests already in flight (new ones get `unavailable`, which is safe to retry elsewhere),
/// and closes each connection when its client does or when `drainTimeout` has passed.
///
/// iOS 17 and later (discarding task groups): a server has no place in an app, and FoyerClient builds for iOS 16.
@available(iOS 17, *)
public final class RPCServer: Service, Sendable {
    private let core: ServerCore
    private let eventLoopGroup: any EventLoopGroup
    private let bound: EventLoopPromise<SocketAddress>
    private let listener = NIOLockedValueBox<(any Channel)?>(nil)
    /// Whether `bound` has been completed (a server that is never run completes it in `deinit`).
    private let boundCompleted = ManagedAtomic<Bool>(false)
    private let connections = NIOLockedValueBox<[ObjectIdentifier: ServerConnection]>([:])

    public init(
        configuration: RPCServerConfiguration,
        router: RPCRouter,
        logger: Logger,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        precondition(router.unservedMethods.isEmpty, "no handler for \(router.unservedMethods)")
        var router = router
        let drain = DrainFlag()
        router.registerBuiltins(serviceName: configuration.serviceName, startedAt: .now()) { drain.isSet }
        self.core = ServerCore(
            configuration: configuration,
            router: router,
            drain: drain,
            logger: logger,
            eventLoop: eventLoopGroup.any()
        )
        self.eventLoopGroup = eventLoopGroup
        self.bound = eventLoopGroup.any().makePromise(of: SocketAddress.self)
    }

    /// The address the server listens on, once it does (use with port 0).
    public func boundAddress() async throws -> SocketAddress {
        try await bound.futureResult.get()
    }

    public func run() async throws {
        let configuration = core.configuration
        let core = self.core
        let serverChannel: NIOAsyncChannel<AcceptedConnection, Never>
        do {
            serverChannel = try await ServerBootstrap(group: eventLoopGroup)
                .serverChannelOption(.backlog, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
                .childChannelOption(.maxMessagesPerRead, value: 16)
                .bind(host: configuration.host, port: configuration.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try Self.configure(channel, core: core)
                    }
                }
        } catch {
            completeBound(.failure(error))
            throw error
        }
        listener.withLockedValue { $0 = serverChannel.channel }
        completeBound(.success(serverChannel.channel.localAddress!))
        core.logger.info(
            "listening",
            metadata: [
                "server.address": "\(serverChannel.channel.localAddress!)",
                "server.authentication": "\(configuration.clusterSecret == nil ? "none" : "cluster-secret")",
                "server.tls": "\(configuration.tls == nil ? "off" : "on")",
            ]
        )
        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { group in
                try await serverChannel.executeThenClose { inbound in
                    for try await channel in inbound {
                        group.addTask { await self.serve(channel) }
                    }
                }
            }
        } onGracefulShutdown: {
            self.shutDownGracefully()
        }
        core.logger.info("stopped")
    }

    deinit {
        completeBound(.failure(RPCError(.unavailable, "the server was never run")))
    }

    private func completeBound(_ result: Result<SocketAddress, any Error>) {
        guard boundCompleted.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else {
            return
        }
        bound.completeWith(result)
    }

    /// Stops accepting and drains every connection. Called on graceful shutdown; may be called directly.
    public func shutDownGracefully() {
        core.markDraining()
        let listener = self.listener.withLockedValue { $0 }
        listener?.close(promise: nil)
        let open = connections.withLockedValue { Array($0.values) }
        core.logger.info("draining", metadata: ["connections": "\(open.count)"])
        for connection in open { connection.beginDraining(grace: core.configuration.drainTimeout) }
    }

    private func serve(_ accepted: AcceptedConnection) async {
        let channel = accepted.channel
        if let refusal = accepted.refusal {
            core.warnRefused(refusal, peer: channel.channel.remoteAddress)
            try? await channel.executeThenClose { _, _ in
                var bytes = channel.channel.allocator.buffer(capacity: 64)
                refusal.goAway.encode(into: &bytes)
                try await channel.channel.writeAndFlush(bytes)
            }
            return
        }
        let connection = ServerConnection(channel: channel, proxiedSource: accepted.proxiedSource, server: core)
        let key = ObjectIdentifier(connection)
        connections.withLockedValue { $0[key] = connection }
        await connection.run()
        connections.withLockedValue { $0[key] = nil }
    }

    /// Sets up a connection just accepted, on its event loop: counts it (`ServerCore.admit`), then the PROXY header
    /// reader if it comes from a trusted proxy, the TLS handler if the server has TLS, and the frame reader. A
    /// refused connection gets the frame reader only; `serve` answers it with GOAWAY and closes it.
    private static func configure(_ channel: any Channel, core: ServerCore) throws -> AcceptedConnection {
        let configuration = core.configuration
        let fromTrustedProxy = configuration.trustedProxies.contains(channel.remoteAddress)
        var proxiedSource: ProxiedSource?
        let refusal = core.admit(channel, fromTrustedProxy: fromTrustedProxy)
        if refusal == nil, fromTrustedProxy {
            let source = ProxiedSource()
            let proxy = channel.remoteAddress
            let handler = ProxyHeaderHandler(source: source) { client in
                core.admitProxiedClient(channel, address: client, proxy: proxy)
            }
            try channel.pipeline.syncOperations.addHandler(handler)
            proxiedSource = source
        }
        if refusal == nil, let tls = configuration.tls {
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls.current))
        }
        let reader = FrameReader(
            decoder: FrameDecoder(expectsPreface: true, frameLengthMax: configuration.frameLengthMax),
            timeouts: .init(handshake: configuration.handshakeTimeout, slowFrame: configuration.slowFrameTimeout)
        )
        try channel.pipeline.syncOperations.addHandler(reader)
        let asyncChannel = try NIOAsyncChannel<Frame, ByteBuffer>(
            wrappingChannelSynchronously: channel,
            configuration: .init(backPressureStrategy: .init(lowWatermark: 32, highWatermark: 256))
        )
        return AcceptedConnection(channel: asyncChannel, proxiedSource: proxiedSource, refusal: refusal)
    }
}

/// A connection as accepted: its channel; from a trusted proxy, where the PROXY header's address will be; and, if it
/// was over a connection limit, why it is refused.
struct AcceptedConnection: Sendable {
    let channel: NIOAsyncChannel<Frame, ByteBuffer>
    let proxiedSource: ProxiedSource?
    let refusal: ConnectionAdmission.Refusal?
}

extension RPCRouter {
    /// Adds `health` and `echo`, which every server answers.
    mutating func registerBuiltins(
        serviceName: String,
        startedAt: NIODeadline,
        isDraining: @escaping @Sendable () -> Bool
    ) {
        register(BuiltinMethods.health) { _, _ in
            HealthStatus(
                service: serviceName,
                state: isDraining() ? .draining : .serving,
                uptimeMilliseconds: UInt64((NIODeadline.now() - startedAt).nanoseconds / 1_000_000)
            )
        }
        register(BuiltinMethods.echo) { request, _ in request }
    }
}
