public import Logging
public import NIOCore
import NIOHTTP1
public import NIOPosix
public import ServiceLifecycle
import Synchronization

/// Serves a process's metrics to Prometheus on a port of its own: `GET /metrics` answers the text exposition of a
/// ``MetricsRegistry``; any other path is 404 and any other method on `/metrics` 405.
///
/// Meant for a private address and a scraper, so it is small and strict: one request per connection (answered with
/// `Connection: close`), at most ``Configuration/requestByteCountMax`` bytes read from a connection, closed after
/// ``Configuration/idleTimeout`` without traffic, at most ``Configuration/connectionsMax`` connections at once (more
/// are closed at once). Run it in the process's `ServiceGroup`; it stops accepting on graceful shutdown.
public final class MetricsServer: Service, Sendable {
    /// Where and how the endpoint listens.
    public struct Configuration: Sendable {
        /// Address to listen on: the service's `--host`.
        public var host: String
        /// Port to listen on; 0 picks a free one (see ``MetricsServer/boundAddress()``).
        public var port: Int
        /// Most bytes read from one connection: the request head (a scrape sends a few hundred). 8 KiB.
        public var requestByteCountMax = 8192
        /// A connection that sends and receives nothing for this long is closed. 10 s.
        public var idleTimeout: TimeAmount = .seconds(10)
        /// Most connections open at once. 8.
        public var connectionsMax = 8

        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }
    }

    private let configuration: Configuration
    private let registry: MetricsRegistry
    private let logger: Logger
    private let eventLoopGroup: any EventLoopGroup
    private let bound: EventLoopPromise<SocketAddress>
    /// Whether `bound` has been completed (a server never run completes it in `deinit`).
    private let boundCompleted = Mutex(false)
    private let open = Mutex(0)

    public init(
        configuration: Configuration,
        registry: MetricsRegistry,
        logger: Logger,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.configuration = configuration
        self.registry = registry
        self.logger = logger
        self.eventLoopGroup = eventLoopGroup
        self.bound = eventLoopGroup.any().makePromise(of: SocketAddress.self)
    }

    deinit {
        completeBound(.failure(ServiceKitError("the metrics server was never run")))
    }

    private func completeBound(_ result: Result<SocketAddress, any Error>) {
        let first = boundCompleted.withLock { completed in
            defer { completed = true }
            return !completed
        }
        if first { bound.completeWith(result) }
    }

    /// The address the endpoint listens on, once it does.
    public func boundAddress() async throws -> SocketAddress {
        try await bound.futureResult.get()
    }

    public func run() async throws {
        let configuration = self.configuration
        let listener: NIOAsyncChannel<NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, Never>
        do {
            listener = try await ServerBootstrap(group: eventLoopGroup)
                .serverChannelOption(.backlog, value: 16)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .bind(host: configuration.host, port: configuration.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        let sync = channel.pipeline.syncOperations
                        try sync.addHandler(IdleStateHandler(allTimeout: configuration.idleTimeout))
                        try sync.addHandler(MetricsConnectionLimits(byteCountMax: configuration.requestByteCountMax))
                        try sync.configureHTTPServerPipeline(withPipeliningAssistance: false, withErrorHandling: true)
                        return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(
                            wrappingChannelSynchronously: channel
                        )
                    }
                }
        } catch {
            completeBound(.failure(error))
            throw error
        }
        let address = listener.channel.localAddress!
        completeBound(.success(address))
        logger.info("metrics listening", metadata: ["metrics.address": "\(address)"])
        let serverChannel = listener.channel
        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { group in
                try await listener.executeThenClose { inbound in
                    for try await connection in inbound {
                        group.addTask { await self.serve(connection) }
                    }
                }
            }
        } onGracefulShutdown: {
            serverChannel.close(promise: nil)
        }
    }

    /// Answers one request on `connection`, then closes it; closes it at once when ``Configuration/connectionsMax``
    /// are already open.
    private func serve(_ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>) async {
        let admitted = open.withLock { count in
            guard count < configuration.connectionsMax else { return false }
            count += 1
            return true
        }
        guard admitted else {
            try? await connection.channel.close()
            return
        }
        defer { open.withLock { $0 -= 1 } }
        do {
            try await connection.executeThenClose { inbound, outbound in
                var head: HTTPRequestHead?
                for try await part in inbound {
                    switch part {
                    case .head(let requestHead): head = requestHead
                    case .body: continue
                    case .end:
                        guard let head else { return }
                        try await respond(to: head, outbound: outbound, allocator: connection.channel.allocator)
                        return
                    }
                }
            }
        } catch {
            logger.debug("metrics connection ended", metadata: ["error": "\(error)"])
        }
    }

    private func respond(
        to head: HTTPRequestHead,
        outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>,
        allocator: ByteBufferAllocator
    ) async throws {
        let path = head.uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        var headers = HTTPHeaders([("Connection", "close")])
        let status: HTTPResponseStatus
        let body: ByteBuffer
        switch (path == "/metrics", head.method) {
        case (true, .GET):
            status = .ok
            body = ByteBuffer(bytes: registry.render())
            headers.add(name: "Content-Type", value: "text/plain; version=0.0.4; charset=utf-8")
        case (true, _):
            status = .methodNotAllowed
            body = ByteBuffer(string: "only GET\n")
            headers.add(name: "Allow", value: "GET")
            headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        case (false, _):
            status = .notFound
            body = ByteBuffer(string: "only /metrics\n")
            headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        }
        headers.add(name: "Content-Length", value: "\(body.readableBytes)")
        try await outbound.write(.head(HTTPResponseHead(version: head.version, status: status, headers: headers)))
        try await outbound.write(.body(.byteBuffer(body)))
        try await outbound.write(.end(nil))
    }
}

/// Closes a metrics connection that sends more than `byteCountMax` bytes, or that ``IdleStateHandler`` finds idle.
final class MetricsConnectionLimits: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let byteCountMax: Int
    private let received = Mutex(0)

    init(byteCountMax: Int) {
        self.byteCountMax = byteCountMax
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data).readableBytes
        let total = received.withLock { count in
            count += bytes
            return count
        }
        guard total <= byteCountMax else {
            context.close(promise: nil)
            return
        }
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }
}
