public import FoyerWire
public import NIOCore
import NIOPosix
import Synchronization

/// A raw TCP peer for protocol tests: sends any bytes, and reads what the other side answers as frames.
///
/// It deliberately knows nothing of the protocol's rules, so tests can break them.
public final class RawPeer: Sendable {
    public struct Timeout: Error, CustomStringConvertible {
        public var description: String { "no frame arrived in time" }
    }

    private let channel: any Channel
    private let inbox: FrameInbox

    private init(channel: any Channel, inbox: FrameInbox) {
        self.channel = channel
        self.inbox = inbox
    }

    /// Connects to 127.0.0.1:`port`, from the local address `source` if given (another loopback address such as
    /// 127.0.0.2, to appear as a second host).
    public static func connect(port: Int, from source: String? = nil) async throws -> RawPeer {
        let inbox = FrameInbox()
        var bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        if let source { bootstrap = bootstrap.bind(to: try SocketAddress(ipAddress: source, port: 0)) }
        let channel =
            try await bootstrap
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(CollectingHandler(inbox: inbox))
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .get()
        return RawPeer(channel: channel, inbox: inbox)
    }

    public func send(_ bytes: [UInt8]) async throws {
        try await channel.writeAndFlush(ByteBuffer(bytes: bytes)).get()
    }

    public func send(_ buffer: ByteBuffer) async throws {
        try await channel.writeAndFlush(buffer).get()
    }

    public func send(_ frame: Frame) async throws {
        var buffer = ByteBuffer()
        frame.encode(into: &buffer)
        try await send(buffer)
    }

    /// Sends the preface and a HELLO (with a valid proof made by `sign`, if given).
    public func sendPrefaceAndHello(_ hello: Hello, preface: Preface = .current) async throws {
        var buffer = ByteBuffer()
        preface.encode(into: &buffer)
        Frame(header: FrameHeader(type: .hello), body: hello.encoded()).encode(into: &buffer)
        try await send(buffer)
    }

    /// The next frame from the other side; `nil` once the connection is closed and every frame was read.
    public func nextFrame(timeout: TimeAmount = .seconds(10)) async throws -> Frame? {
        try await inbox.next(timeout: timeout, eventLoop: channel.eventLoop)
    }

    /// Reads until a GOAWAY arrives and returns its reason and message, skipping other frames.
    public func expectGoAway(
        timeout: TimeAmount = .seconds(10)
    ) async throws -> (reason: GoAwayReason, message: String)? {
        while let frame = try await nextFrame(timeout: timeout) {
            if frame.type == .goAway {
                let message = (try? GoAwayBody(decoding: frame.body))?.message ?? ""
                return (GoAwayReason(rawValue: frame.header.code), message)
            }
        }
        return nil
    }

    /// Waits until the other side closes the connection (every remaining frame is discarded).
    public func expectClosed(timeout: TimeAmount = .seconds(10)) async throws {
        while try await nextFrame(timeout: timeout) != nil {}
    }

    public func close() async {
        try? await channel.close()
    }
}

/// Frames received so far, and at most one reader waiting for the next.
private final class FrameInbox: Sendable {
    private struct State {
        var frames: [Frame] = []
        var closed = false
        var waiter: CheckedContinuation<Frame?, any Error>?
        var generation = 0
    }

    private let state = Mutex(State())

    func push(_ frame: Frame) {
        let waiter = state.withLock { state -> CheckedContinuation<Frame?, any Error>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.frames.append(frame)
            return nil
        }
        waiter?.resume(returning: frame)
    }

    func close() {
        let waiter = state.withLock { state -> CheckedContinuation<Frame?, any Error>? in
            state.closed = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    func next(timeout: TimeAmount, eventLoop: any EventLoop) async throws -> Frame? {
        try await withCheckedThrowingContinuation { continuation in
            let outcome = state.withLock { state -> (Frame?, Bool, Int) in
                if !state.frames.isEmpty { return (state.frames.removeFirst(), true, 0) }
                if state.closed { return (nil, true, 0) }
                state.waiter = continuation
                state.generation += 1
                return (nil, false, state.generation)
            }
            if outcome.1 { return continuation.resume(returning: outcome.0) }
            let generation = outcome.2
            eventLoop.scheduleTask(in: timeout) {
                let expired = self.state.withLock { state -> CheckedContinuation<Frame?, any Error>? in
                    guard state.generation == generation, let waiter = state.waiter else { return nil }
                    state.waiter = nil
                    return waiter
                }
                expired?.resume(throwing: RawPeer.Timeout())
            }
        }
    }
}

/// Decodes what the other side sends (as a client sees it: no preface) into the inbox.
private final class CollectingHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let inbox: FrameInbox
    private var buffer = ByteBuffer()
    private var decoder = FrameDecoder(expectsPreface: false, frameLengthMax: 64 << 20)

    init(inbox: FrameInbox) { self.inbox = inbox }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        buffer.writeBuffer(&bytes)
        while let frame = try? decoder.decode(buffer: &buffer) { inbox.push(frame) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        inbox.close()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
