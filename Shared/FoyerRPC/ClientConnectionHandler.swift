import FoyerWire
import NIOCore
import Synchronization

/// Load and health of one client connection, read by the pool without hopping to the event loop.
final class ConnectionGauge: Sendable {
    private let callsPending = Atomic<Int>(0)
    private let open = Atomic<Bool>(true)

    var pending: Int { callsPending.load(ordering: .relaxed) }
    var isOpen: Bool { open.load(ordering: .acquiring) }
    func add(_ delta: Int) { callsPending.add(delta, ordering: .relaxed) }
    func markClosed() { open.store(false, ordering: .releasing) }
}

/// The client side of one connection, confined to its event loop: the handshake, calls in flight matched to
/// answers by id, a local queue when the server's in-flight limit is reached, deadlines, keepalive, GOAWAY.
final class ClientConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = Frame
    typealias OutboundOut = ByteBuffer

    private enum State {
        case handshaking
        case ready
        case draining
        case closed
    }

    private struct Call {
        var continuation: CheckedContinuation<Frame, any Error>?
        var deadline: NIODeadline?
        var written: Bool
        var bytes: ByteBuffer?
    }

    private let hello: Hello
    private let authenticator: HandshakeAuthenticator?
    private let handshakePromise: EventLoopPromise<HelloAck>
    private let gauge: ConnectionGauge
    private let queueMax: Int
    private let keepaliveInterval: TimeAmount
    private let keepaliveTimeout: TimeAmount

    private var state = State.handshaking
    private var context: ChannelHandlerContext?
    private var calls: [UInt32: Call] = [:]
    private var queue = CircularBuffer<UInt32>()
    private var written = 0
    private var maxInFlight = 1
    private var lastRead = NIODeadline.now()
    private var lastCallFinished = NIODeadline.now()
    /// When the connection last went from no calls to one: the server owes an answer from then on, so silence
    /// before it (an idle connection) does not count against the keepalive.
    private var busySince = NIODeadline.now()
    /// When the last keepalive PING went out; answered once anything has been read after it.
    private var pingSentAt: NIODeadline?
    private var serverIdleTimeout: TimeAmount?
    private var keepalive: RepeatedTask?
    private var deadlineSweep: RepeatedTask?
    /// The earliest deadline of a pending call (or of one already answered): sweeps before it are free.
    private var nextDeadline: NIODeadline?
    private var nextPingID: UInt32 = 0
    private var flushScheduled = false

    init(
        hello: Hello,
        authenticator: HandshakeAuthenticator?,
        handshakePromise: EventLoopPromise<HelloAck>,
        gauge: ConnectionGauge,
        queueMax: Int,
        keepaliveInterval: TimeAmount,
        keepaliveTimeout: TimeAmount
    ) {
        self.hello = hello
        self.authenticator = authenticator
        self.handshakePromise = handshakePromise
        self.gauge = gauge
        self.queueMax = queueMax
        self.keepaliveInterval = keepaliveInterval
        self.keepaliveTimeout = keepaliveTimeout
    }

    // MARK: Channel events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { sendHello(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        sendHello(context: context)
        context.fireChannelActive()
    }

    private func sendHello(context: ChannelHandlerContext) {
        var buffer = context.channel.allocator.buffer(capacity: 128)
        Preface.current.encode(into: &buffer)
        Frame(header: FrameHeader(type: .hello), body: hello.encoded()).encode(into: &buffer)
        context.writeAndFlush(wrapOutboundOut(buffer), promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        shutDown(reason: RPCError(.connectionLost, "connection to the server was lost"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        shutDown(reason: RPCError(.connectionLost, "connection failed: \(error)"))
        context.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        lastRead = .now()
        switch (state, frame.type) {
        case (.handshaking, .helloAck):
            completeHandshake(frame, context: context)
        case (.handshaking, .goAway):
            let message = (try? GoAwayBody(decoding: frame.body))?.message ?? ""
            let reason = GoAwayReason(rawValue: frame.header.code)
            handshakePromise.fail(RPCError(.unavailable, "server refused the connection (\(reason)): \(message)"))
            context.close(promise: nil)
        case (.ready, .response), (.ready, .error), (.draining, .response), (.draining, .error):
            answer(frame, context: context)
        case (.ready, .ping), (.draining, .ping):
            write(.pong(id: frame.id), context: context)
        case (.ready, .pong), (.draining, .pong):
            break
        case (.ready, .goAway), (.draining, .goAway):
            beginDraining(context: context)
        case (.closed, _):
            break
        default:
            protocolError("unexpected \(frame.type) frame", context: context)
        }
    }

    // MARK: Handshake

    private func completeHandshake(_ frame: Frame, context: ChannelHandlerContext) {
        let ack: HelloAck
        do {
            ack = try HelloAck(decoding: frame.body)
        } catch {
            return protocolError("malformed HELLO_ACK: \(error)", context: context)
        }
        guard ack.compression.isSubset(of: hello.compression) else {
            return protocolError("HELLO_ACK chose a compression the client did not offer", context: context)
        }
        if let authenticator {
            guard let nonce = hello.proof?.nonce, authenticator.verify(ack, clientNonce: nonce) else {
                handshakePromise.fail(RPCError(.unavailable, "server did not prove it holds the cluster secret"))
                return context.close(promise: nil)
            }
        }
        state = .ready
        maxInFlight = Int(ack.maxInFlight)
        serverIdleTimeout = ack.idleTimeoutMilliseconds == 0 ? nil : .milliseconds(Int64(ack.idleTimeoutMilliseconds))
        context.triggerUserOutboundEvent(FrameReader.HandshakeCompleted(), promise: nil)
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        // Checked several times per interval, so a timer firing a little late never turns one unanswered-looking
        // period into a lost connection.
        let checkEvery = TimeAmount.nanoseconds(
            max(min(keepaliveInterval, keepaliveTimeout).nanoseconds / 4, 10_000_000)
        )
        keepalive = context.eventLoop.scheduleRepeatedTask(initialDelay: checkEvery, delay: checkEvery) { _ in
            loopBound.value.checkKeepalive()
        }
        // One sweep every 10 ms instead of a timer per call: deadlines fire at most 10 ms late.
        deadlineSweep = context.eventLoop.scheduleRepeatedTask(
            initialDelay: .milliseconds(10),
            delay: .milliseconds(10)
        ) { _ in
            loopBound.value.expireDeadlines(now: .now())
        }
        handshakePromise.succeed(ack)
    }

    // MARK: Calls

    /// Starts a call whose request frame is already encoded in `bytes`.
    func start(
        id: UInt32,
        bytes: ByteBuffer,
        deadline: NIODeadline?,
        continuation: CheckedContinuation<Frame, any Error>
    ) {
        guard state == .ready, let context else {
            return continuation.resume(throwing: RPCError(.unavailable, "connection is closing"))
        }
        guard calls[id] == nil else {
            return continuation.resume(
                throwing: RPCError(.unavailable, "call id \(id) still in use on this connection")
            )
        }
        guard written < maxInFlight || queue.count < queueMax else {
            return continuation.resume(throwing: RPCError(.overloaded, "too many calls waiting for this upstream"))
        }
        if calls.isEmpty { busySince = .now() }
        calls[id] = Call(continuation: continuation, deadline: deadline, written: false, bytes: bytes)
        if let deadline { nextDeadline = min(nextDeadline ?? deadline, deadline) }
        gauge.add(1)
        if written < maxInFlight {
            send(id: id, context: context)
        } else {
            queue.append(id)
        }
    }

    /// Gives up on a call (deadline or cancellation). A call already sent keeps its id until the server
    /// answers; the server is told with CANCEL.
    func stop(id: UInt32, error: RPCError) {
        guard var call = calls[id], let continuation = call.continuation else { return }
        call.continuation = nil
        if call.written {
            calls[id] = call
            if let context { write(.cancel(id: id), context: context) }
        } else {
            calls[id] = nil
            queue.removeAll { $0 == id }
            gauge.add(-1)
        }
        continuation.resume(throwing: error)
    }

    /// Fails every call whose deadline has passed with `deadlineExceeded`.
    private func expireDeadlines(now: NIODeadline) {
        guard let next = nextDeadline, next <= now else { return }
        nextDeadline = nil
        var expired: [UInt32] = []
        for (id, call) in calls where call.continuation != nil {
            guard let deadline = call.deadline else { continue }
            if deadline <= now {
                expired.append(id)
            } else {
                nextDeadline = min(nextDeadline ?? deadline, deadline)
            }
        }
        for id in expired { stop(id: id, error: .deadlineExceeded()) }
    }

    private func send(id: UInt32, context: ChannelHandlerContext) {
        guard let bytes = calls[id]?.bytes else { return }
        calls[id]!.bytes = nil
        calls[id]!.written = true
        written += 1
        write(bytes: bytes, context: context)
    }

    private func answer(_ frame: Frame, context: ChannelHandlerContext) {
        guard let call = calls.removeValue(forKey: frame.id), call.written else {
            return protocolError("answer for call \(frame.id), which is not in flight", context: context)
        }
        written -= 1
        gauge.add(-1)
        lastCallFinished = .now()
        call.continuation?.resume(returning: frame)
        while written < maxInFlight, state == .ready, let next = queue.popFirst() {
            send(id: next, context: context)
        }
        if state == .draining, calls.isEmpty { flushAndClose(context: context) }
    }

    // MARK: Connection lifecycle

    private func beginDraining(context: ChannelHandlerContext) {
        guard state == .ready else { return }
        state = .draining
        gauge.markClosed()
        // Queued calls were never sent: they can go to another connection.
        while let id = queue.popFirst() {
            if let call = calls.removeValue(forKey: id) {
                gauge.add(-1)
                call.continuation?.resume(throwing: RPCError(.unavailable, "connection is draining"))
            }
        }
        if calls.isEmpty { flushAndClose(context: context) }
    }

    /// Closes once everything written so far is on its way (a GOAWAY must not be dropped by the close).
    private func flushAndClose(context: ChannelHandlerContext) {
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(capacity: 0))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    /// Asks the server to stop sending (client shutdown): GOAWAY, then close once every answer is in.
    func closeGracefully() {
        guard let context else { return }
        switch state {
        case .handshaking:
            context.close(promise: nil)
        case .ready:
            write(.goAway(reason: .shutdown, body: GoAwayBody(message: "client closing").encoded()), context: context)
            beginDraining(context: context)
        case .draining, .closed:
            break
        }
    }

    private func checkKeepalive() {
        guard let context else { return }
        guard !calls.isEmpty else {
            // Leave an unused connection before the server's idle timeout does, so no call can race its GOAWAY.
            // The server's idle clock runs from its last call in flight (PINGs and PONGs do not count), which is
            // before we read the last answer, so counting from that answer is on the safe side.
            if state == .ready, let serverIdleTimeout,
                NIODeadline.now() - lastCallFinished >= .nanoseconds(serverIdleTimeout.nanoseconds * 3 / 4)
            {
                closeGracefully()
            }
            return
        }
        let now = NIODeadline.now()
        if let sent = pingSentAt, sent >= lastRead {
            // A PING is out and nothing has come back since.
            if now - sent >= keepaliveTimeout {
                shutDown(reason: RPCError(.connectionLost, "server stopped answering keepalive pings"))
                context.close(promise: nil)
            }
        } else if now - max(lastRead, busySince) >= keepaliveInterval {
            nextPingID &+= 1
            pingSentAt = now
            write(.ping(id: nextPingID), context: context)
        }
    }

    private func protocolError(_ message: String, context: ChannelHandlerContext) {
        write(.goAway(reason: .protocolError, body: GoAwayBody(message: message).encoded()), context: context)
        shutDown(reason: RPCError(.connectionLost, "server broke the protocol: \(message)"))
        flushAndClose(context: context)
    }

    /// Fails everything still waiting: sent calls as outcome unknown, unsent ones as not processed.
    private func shutDown(reason: RPCError) {
        guard state != .closed else { return }
        if state == .handshaking { handshakePromise.fail(RPCError(.unavailable, reason.message)) }
        state = .closed
        gauge.markClosed()
        keepalive?.cancel()
        deadlineSweep?.cancel()
        let pending = calls
        calls.removeAll()
        queue.removeAll()
        for call in pending.values {
            gauge.add(-1)
            let error = call.written ? reason : RPCError(.unavailable, reason.message)
            call.continuation?.resume(throwing: error)
        }
    }

    // MARK: Writing

    private func write(_ frame: Frame, context: ChannelHandlerContext) {
        var buffer = context.channel.allocator.buffer(capacity: FrameHeader.byteCount + frame.body.readableBytes)
        frame.encode(into: &buffer)
        write(bytes: buffer, context: context)
    }

    /// Writes now and flushes once at the end of the current batch of event-loop work.
    private func write(bytes: ByteBuffer, context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(bytes), promise: nil)
        guard !flushScheduled else { return }
        flushScheduled = true
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        context.eventLoop.execute {
            let (handler, context) = loopBound.value
            handler.flushScheduled = false
            context.flush()
        }
    }
}
