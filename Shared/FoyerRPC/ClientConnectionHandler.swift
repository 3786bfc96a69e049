import Atomics
import FoyerWire
import NIOCore

/// Load and health of one client connection, read by the pool without hopping to the event loop.
final class ConnectionGauge: Sendable {
    private let callsPending = ManagedAtomic<Int>(0)
    private let open = ManagedAtomic<Bool>(true)

    var pending: Int { callsPending.load(ordering: .relaxed) }
    var isOpen: Bool { open.load(ordering: .acquiring) }
    func add(_ delta: Int) { callsPending.wrappingIncrement(by: delta, ordering: .relaxed) }
    func markClosed() { open.store(false, ordering: .releasing) }
}

/// The client side of one connection, confined to its event loop: it feeds `ClientConnectionState` the channel's
/// events and the callers' calls, and carries out the actions it returns (writes, answers, timers, closing).
final class ClientConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = Frame
    typealias OutboundOut = ByteBuffer
    typealias Action = ClientConnectionState.Action

    private let hello: Hello
    private let handshakePromise: EventLoopPromise<HelloAck>
    private let gauge: ConnectionGauge

    private var state: ClientConnectionState
    private var context: ChannelHandlerContext?
    /// The callers still waiting, by call id.
    private var continuations: [UInt32: CheckedContinuation<Frame, any Error>] = [:]
    /// The calls the gauge counts now.
    private var gaugedCalls = 0
    private var keepalive: RepeatedTask?
    private var deadlineSweep: RepeatedTask?
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
        self.handshakePromise = handshakePromise
        self.gauge = gauge
        self.state = ClientConnectionState(
            hello: hello,
            authenticator: authenticator,
            queueMax: queueMax,
            keepaliveInterval: keepaliveInterval,
            keepaliveTimeout: keepaliveTimeout,
            now: .now()
        )
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
        perform(state.shutDown(reason: RPCError(.connectionLost, "connection to the server was lost")))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        perform(state.shutDown(reason: RPCError(.connectionLost, "connection failed: \(error)")))
        context.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        perform(state.received(unwrapInboundIn(data), now: .now()))
    }

    // MARK: Calls

    /// Starts a call whose request frame is already encoded in `bytes`.
    func start(
        id: UInt32,
        bytes: ByteBuffer,
        deadline: NIODeadline?,
        continuation: CheckedContinuation<Frame, any Error>
    ) {
        guard let context else {
            return continuation.resume(throwing: RPCError(.unavailable, "connection is closing"))
        }
        let action = state.start(id: id, bytes: bytes, deadline: deadline, now: .now())
        if case .reject(let error) = action { return continuation.resume(throwing: error) }
        continuations[id] = continuation
        syncGauge()
        if case .send(let bytes) = action { write(bytes: bytes, context: context) }
    }

    /// Gives up on a call (deadline or cancellation); see `ClientConnectionState.stop`.
    func stop(id: UInt32, error: RPCError) {
        perform(state.stop(id: id, error: error))
    }

    /// Asks the server to stop sending (client shutdown): GOAWAY, then close once every answer is in.
    func closeGracefully() {
        guard context != nil else { return }
        perform(state.closeGracefully())
    }

    // MARK: Actions

    /// Brings the gauge up to date, then carries out `actions` in order.
    private func perform(_ actions: [Action]) {
        syncGauge()
        guard let context else { return }
        for action in actions { perform(action, context: context) }
    }

    private func perform(_ action: Action, context: ChannelHandlerContext) {
        switch action {
        case .write(let frame):
            write(frame, context: context)
        case .send(let bytes):
            write(bytes: bytes, context: context)
        case .succeed(let id, let frame):
            continuations.removeValue(forKey: id)?.resume(returning: frame)
        case .fail(let id, let error):
            continuations.removeValue(forKey: id)?.resume(throwing: error)
        case .handshakeSucceeded(let ack):
            context.triggerUserOutboundEvent(FrameReader.HandshakeCompleted(), promise: nil)
            startTimers(context: context)
            handshakePromise.succeed(ack)
        case .handshakeFailed(let error):
            handshakePromise.fail(error)
        case .close:
            context.close(promise: nil)
        case .flushAndClose:
            flushAndClose(context: context)
        case .stopTimers:
            keepalive?.cancel()
            deadlineSweep?.cancel()
        }
    }

    /// The gauge counts every call the state holds, and is closed once the connection stops taking calls.
    private func syncGauge() {
        let count = state.calls.count
        if count != gaugedCalls {
            gauge.add(count - gaugedCalls)
            gaugedCalls = count
        }
        if state.state == .draining || state.state == .closed { gauge.markClosed() }
    }

    private func startTimers(context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let checkEvery = state.keepaliveCheckInterval
        keepalive = context.eventLoop.scheduleRepeatedTask(initialDelay: checkEvery, delay: checkEvery) { _ in
            let handler = loopBound.value
            handler.perform(handler.state.checkKeepalive(now: .now()))
        }
        // One sweep every 10 ms instead of a timer per call: deadlines fire at most 10 ms late.
        deadlineSweep = context.eventLoop.scheduleRepeatedTask(
            initialDelay: .milliseconds(10),
            delay: .milliseconds(10)
        ) { _ in
            let handler = loopBound.value
            handler.perform(handler.state.expireDeadlines(now: .now()))
        }
    }

    /// Closes once everything written so far is on its way (a GOAWAY must not be dropped by the close).
    private func flushAndClose(context: ChannelHandlerContext) {
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(capacity: 0))).whenComplete { _ in
            channel.close(promise: nil)
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
