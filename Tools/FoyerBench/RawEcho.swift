import FoyerBenchKit
import NIOCore
import NIOPosix

/// The floor: a SwiftNIO server that answers each `u32 length + bytes` message with the same bytes, doing no
/// decoding at all, flushing once per read batch.
struct RawEchoServer {
    let channel: any Channel
    var port: Int { channel.localAddress!.port! }

    static func start() async throws -> RawEchoServer {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([
                        ByteToMessageHandler(LengthPrefixedDecoder()), EchoHandler(),
                    ])
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return RawEchoServer(channel: channel)
    }

    func stop() async throws { try await channel.close() }
}

/// Splits `u32 length + bytes` messages, returning each whole message (length included).
struct LengthPrefixedDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let length = buffer.getInteger(at: buffer.readerIndex, as: UInt32.self),
            buffer.readableBytes >= 4 + Int(length)
        else { return .needMoreData }
        context.fireChannelRead(wrapInboundOut(buffer.readSlice(length: 4 + Int(length))!))
        return .continue
    }
}

final class EchoHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.write(data, promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
    }
}

/// Keeps `inFlight` messages outstanding on one connection for `seconds`, recording each round trip.
enum RawEchoClient {
    static func measure(
        port: Int,
        inFlight: Int,
        payloadByteCount: Int,
        seconds: Double
    ) async throws -> LatencyRecorder {
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        let done = eventLoop.makePromise(of: LatencyRecorder.self)
        let end = NIODeadline.now() + .nanoseconds(Int64(seconds * 1e9))
        let channel = try await ClientBootstrap(group: eventLoop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([
                        ByteToMessageHandler(LengthPrefixedDecoder()),
                        PipelinedClientHandler(
                            inFlight: inFlight,
                            payloadByteCount: payloadByteCount,
                            end: end,
                            done: done
                        ),
                    ])
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .get()
        let recorder = try await done.futureResult.get()
        try await channel.close()
        return recorder
    }
}

final class PipelinedClientHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let inFlight: Int
    private let end: NIODeadline
    private let done: EventLoopPromise<LatencyRecorder>
    private let message: ByteBuffer
    private var sentAt = CircularBuffer<NIODeadline>()
    private var recorder = LatencyRecorder()

    init(inFlight: Int, payloadByteCount: Int, end: NIODeadline, done: EventLoopPromise<LatencyRecorder>) {
        self.inFlight = inFlight
        self.end = end
        self.done = done
        var message = ByteBuffer()
        message.writeInteger(UInt32(payloadByteCount))
        message.writeRepeatingByte(0x5A, count: payloadByteCount)
        self.message = message
    }

    func channelActive(context: ChannelHandlerContext) {
        for _ in 0..<inFlight { send(context: context) }
        context.flush()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let now = NIODeadline.now()
        recorder.record(since: sentAt.removeFirst(), now: now)
        if now < end {
            send(context: context)
        } else if sentAt.isEmpty {
            done.succeed(recorder)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        context.flush()
    }

    private func send(context: ChannelHandlerContext) {
        sentAt.append(.now())
        context.write(wrapOutboundOut(message), promise: nil)
    }
}
