import NIOCore
import NIOPosix
import Synchronization

/// A loopback TCP relay that forwards every connection it accepts to `127.0.0.1:targetPort` and counts the TCP
/// payload bytes it forwards in both directions (HTTP/2 frames and their headers, not IP or TCP headers).
///
/// Used only to measure bytes on the wire per call; latency is never measured through it.
public struct ByteCountingRelay {
    private let channel: any Channel
    /// The bytes forwarded so far.
    public let counter: ByteCounter

    /// The loopback port the relay listens on.
    public var port: Int {
        get throws {
            guard let port = channel.localAddress?.port else { throw BenchError.noListeningPort }
            return port
        }
    }

    /// Starts listening on an ephemeral loopback port.
    public static func start(forwardingTo targetPort: Int) async throws -> ByteCountingRelay {
        let counter = ByteCounter()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { inbound in
                // The accepted connection starts reading only once this future succeeds, so nothing arrives
                // before both halves of the relay are in place.
                ClientBootstrap(group: inbound.eventLoop)
                    .channelOption(.socketOption(.tcp_nodelay), value: 1)
                    .connect(host: "127.0.0.1", port: targetPort)
                    .flatMapThrowing { outbound in
                        try outbound.pipeline.syncOperations.addHandler(RelayHandler(peer: inbound, counter: counter))
                        try inbound.pipeline.syncOperations.addHandler(RelayHandler(peer: outbound, counter: counter))
                    }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return ByteCountingRelay(channel: channel, counter: counter)
    }

    /// Stops accepting connections.
    public func stop() async throws { try await channel.close() }
}

/// The running total of bytes a relay has forwarded.
public final class ByteCounter: Sendable {
    private let total = Atomic<Int>(0)

    /// Bytes forwarded in both directions since the relay started.
    public var bytes: Int { total.load(ordering: .relaxed) }

    func add(_ count: Int) {
        total.wrappingAdd(count, ordering: .relaxed)
    }
}

/// Writes what one side of the relay reads to the other side, counting it; closes the other side when this one
/// closes.
final class RelayHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let peer: any Channel
    private let counter: ByteCounter

    init(peer: any Channel, counter: ByteCounter) {
        self.peer = peer
        self.counter = counter
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        counter.add(buffer.readableBytes)
        peer.write(buffer, promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        peer.flush()
    }

    func channelInactive(context: ChannelHandlerContext) {
        peer.close(promise: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
