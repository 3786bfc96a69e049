import FoyerWire
import NIOCore

/// Turns bytes into frames and enforces the connection's time limits.
///
/// It owns a `FrameDecoder` and its own cumulation buffer (instead of `ByteToMessageHandler`) because the
/// slow-frame limit needs to know when bytes of an unfinished frame have been waiting too long. Any decoding
/// error or expired limit ends the connection with a GOAWAY that says why.
///
/// Limits: until `HandshakeCompleted` passes outbound, the whole handshake must finish within `handshake`, and
/// nothing may follow the first frame (HELLO or HELLO_ACK); at any time, a frame whose first bytes arrived more
/// than `slowFrame` ago without the frame completing closes the connection. The slow-frame clock stands still
/// while nobody downstream asks to read (backpressure), so a peer is never blamed for the server's own pause.
/// (The server's idle limit depends on the calls in flight, so `ServerConnectionState` keeps it.)
///
/// It also stops reading while the channel is not writable, so a peer that sends requests but does not read
/// the answers cannot make the server buffer answers without bound.
final class FrameReader: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = Frame
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Passed outbound (`triggerUserOutboundEvent`) once HELLO / HELLO_ACK has been exchanged.
    struct HandshakeCompleted: Sendable {}

    struct Timeouts: Sendable {
        var handshake: TimeAmount
        var slowFrame: TimeAmount
    }

    private var decoder: FrameDecoder
    private let timeouts: Timeouts
    private var cumulation: ByteBuffer?
    private var handshakeDeadline: NIODeadline?
    private var partialFrameSince: NIODeadline?
    private var checkTask: RepeatedTask?
    private var failed = false
    private var framesBeforeHandshake = 0
    /// Whether the pipeline asked for a read that has not been answered yet.
    private var readRequested = false
    /// A read held back because the channel was not writable.
    private var readHeld = false

    /// The minor version of the client's preface, once read (server side; see `FrameDecoder.prefaceMinor`).
    var prefaceMinor: UInt16? { decoder.prefaceMinor }

    init(decoder: FrameDecoder, timeouts: Timeouts) {
        self.decoder = decoder
        self.timeouts = timeouts
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context: context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        checkTask?.cancel()
        checkTask = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        checkTask?.cancel()
        checkTask = nil
        context.fireChannelInactive()
    }

    private func start(context: ChannelHandlerContext) {
        guard checkTask == nil else { return }
        handshakeDeadline = NIODeadline.now() + timeouts.handshake
        let shortest = min(timeouts.handshake, timeouts.slowFrame)
        let interval = max(TimeAmount.milliseconds(50), min(.nanoseconds(shortest.nanoseconds / 4), .seconds(1)))
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        checkTask = context.eventLoop.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in
            let (reader, context) = loopBound.value
            reader.checkLimits(context: context)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !failed else { return }
        let bytes = unwrapInboundIn(data)
        if cumulation == nil || cumulation!.readableBytes == 0 {
            cumulation = bytes
        } else {
            var bytes = bytes
            cumulation!.writeBuffer(&bytes)
        }
        var decoded = 0
        do {
            while let frame = try decoder.decode(buffer: &cumulation!) {
                decoded += 1
                if handshakeDeadline != nil {
                    framesBeforeHandshake += 1
                    guard framesBeforeHandshake == 1 else {
                        return fail(
                            context: context,
                            reason: .protocolError,
                            message: "frame sent before the handshake completed"
                        )
                    }
                }
                context.fireChannelRead(wrapInboundOut(frame))
                if failed { return }
            }
        } catch let error as WireError {
            return fail(context: context, reason: error.goAwayReason, message: error.detail)
        } catch {
            return fail(context: context, reason: .protocolError, message: "\(error)")
        }
        if cumulation!.readableBytes == 0 {
            partialFrameSince = nil
            cumulation!.clear()
        } else if decoded > 0 || partialFrameSince == nil {
            partialFrameSince = .now()
            cumulation!.discardReadBytes()
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        readRequested = false
        context.fireChannelReadComplete()
    }

    func read(context: ChannelHandlerContext) {
        guard context.channel.isWritable else {
            readHeld = true
            return
        }
        readRequested = true
        context.read()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, readHeld {
            readHeld = false
            readRequested = true
            context.read()
        }
        context.fireChannelWritabilityChanged()
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        if event is HandshakeCompleted {
            handshakeDeadline = nil
            promise?.succeed()
        } else {
            context.triggerUserOutboundEvent(event, promise: promise)
        }
    }

    private func checkLimits(context: ChannelHandlerContext) {
        guard !failed else { return }
        let now = NIODeadline.now()
        if !readRequested, handshakeDeadline == nil {
            // Backpressure: we are not reading, so unfinished frames are not the peer's doing.
            if partialFrameSince != nil { partialFrameSince = now }
            return
        }
        if let handshakeDeadline, now >= handshakeDeadline {
            fail(context: context, reason: .handshakeTimeout, message: "handshake not completed in time")
        } else if let since = partialFrameSince, now - since >= timeouts.slowFrame {
            fail(context: context, reason: .slowFrame, message: "a frame took too long to arrive")
        }
    }

    /// Sends GOAWAY with `reason` and closes; nothing more is read.
    private func fail(context: ChannelHandlerContext, reason: GoAwayReason, message: String) {
        guard !failed else { return }
        failed = true
        checkTask?.cancel()
        var buffer = context.channel.allocator.buffer(capacity: 64)
        Frame.goAway(reason: reason, body: GoAwayBody(message: message).encoded()).encode(into: &buffer)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(buffer)).whenComplete { _ in channel.close(promise: nil) }
        context.fireErrorCaught(ConnectionClosedByProtocol(reason: reason, message: message))
    }
}

/// Reported through the pipeline when a connection is closed for a protocol violation or an expired limit.
struct ConnectionClosedByProtocol: Error, CustomStringConvertible {
    let reason: GoAwayReason
    let message: String
    var description: String { "\(reason): \(message)" }
}
