import FoyerWire
import NIOCore
import Testing

@testable import FoyerRPC

@Suite("Client connection state machine")
struct ClientConnectionStateTests {
    typealias Action = ClientConnectionState.Action

    static let now = NIODeadline.uptimeNanoseconds(1_000_000_000)

    static let hello = Hello(
        frameLengthMax: 1 << 20,
        maxInFlight: 8,
        compression: .lz4,
        peerName: "tests",
        service: "upstream"
    )

    /// An action, with what a test checks of it.
    enum Step: Hashable {
        case write(FrameType, id: UInt32)
        case goAway(GoAwayReason)
        /// A request written, named by the id its test bytes hold.
        case send(UInt32)
        case succeed(UInt32)
        case fail(UInt32, RPCStatus)
        case handshakeSucceeded
        case handshakeFailed(RPCStatus)
        case close
        case flushAndClose
        case stopTimers
    }

    static func steps(_ actions: [Action]) -> [Step] {
        actions.map { action in
            switch action {
            case .write(let frame) where frame.type == .goAway: .goAway(GoAwayReason(rawValue: frame.header.code))
            case .write(let frame): .write(frame.type, id: frame.id)
            case .send(let bytes): .send(bytes.getInteger(at: bytes.readerIndex, as: UInt32.self) ?? 0)
            case .succeed(let id, _): .succeed(id)
            case .fail(let id, let error): .fail(id, error.status)
            case .handshakeSucceeded: .handshakeSucceeded
            case .handshakeFailed(let error): .handshakeFailed(error.status)
            case .close: .close
            case .flushAndClose: .flushAndClose
            case .stopTimers: .stopTimers
            }
        }
    }

    static func ack(maxInFlight: UInt16 = 2, idleTimeoutMilliseconds: UInt32 = 0) -> HelloAck {
        HelloAck(
            frameLengthMax: 1 << 20,
            maxInFlight: maxInFlight,
            compression: .lz4,
            compressionThreshold: 1024,
            idleTimeoutMilliseconds: idleTimeoutMilliseconds,
            serverName: "server"
        )
    }

    static func fresh() -> ClientConnectionState {
        ClientConnectionState(
            hello: hello,
            authenticator: nil,
            queueMax: 1,
            keepaliveInterval: .seconds(1),
            keepaliveTimeout: .seconds(2),
            now: now
        )
    }

    static func ready(maxInFlight: UInt16 = 2, idleTimeoutMilliseconds: UInt32 = 0) -> ClientConnectionState {
        var state = fresh()
        let ack = ack(maxInFlight: maxInFlight, idleTimeoutMilliseconds: idleTimeoutMilliseconds)
        let actions = state.received(Frame(header: FrameHeader(type: .helloAck), body: ack.encoded()), now: now)
        #expect(actions == [.handshakeSucceeded(ack)])
        #expect(state.state == .ready)
        return state
    }

    /// Starts call `id`, whose test request bytes hold its id.
    static func start(
        _ state: inout ClientConnectionState,
        _ id: UInt32,
        deadline: NIODeadline? = nil,
        at now: NIODeadline = now
    ) -> Step? {
        switch state.start(id: id, bytes: ByteBuffer(integer: id), deadline: deadline, now: now) {
        case .send: .send(id)
        case .queue: nil
        case .reject(let error): .fail(id, error.status)
        }
    }

    static func response(_ id: UInt32) -> Frame { .response(id: id, body: ByteBuffer()) }

    static func received(_ state: inout ClientConnectionState, _ frame: Frame, at now: NIODeadline = now) -> [Step] {
        steps(state.received(frame, now: now))
    }

    // MARK: Handshake

    @Test("a valid HELLO_ACK opens the connection with the server's in-flight limit")
    func handshake() {
        var state = Self.fresh()
        #expect(Self.start(&state, 1) == .fail(1, .unavailable))
        state = Self.ready(maxInFlight: 3)
        #expect(state.maxInFlight == 3)
        #expect(Self.start(&state, 1) == .send(1))
    }

    @Test("GOAWAY during the handshake fails it; a bad HELLO_ACK or another frame is a protocol error")
    func handshakeFailures() {
        var state = Self.fresh()
        let goAway = Frame.goAway(reason: .authenticationFailed, body: GoAwayBody(message: "no").encoded())
        #expect(Self.received(&state, goAway) == [.handshakeFailed(.unavailable), .close])

        var unoffered = Self.ack()
        unoffered.compression = .lz4
        let hello = Hello(frameLengthMax: 1 << 20, maxInFlight: 8, compression: [], peerName: "t", service: "u")
        state = ClientConnectionState(
            hello: hello,
            authenticator: nil,
            queueMax: 1,
            keepaliveInterval: .seconds(1),
            keepaliveTimeout: .seconds(2),
            now: Self.now
        )
        let ackFrame = Frame(header: FrameHeader(type: .helloAck), body: unoffered.encoded())
        let protocolError: [Step] = [
            .goAway(.protocolError), .handshakeFailed(.unavailable), .stopTimers, .flushAndClose,
        ]
        #expect(Self.received(&state, ackFrame) == protocolError)
        #expect(state.state == .closed)

        state = Self.fresh()
        let truncated = Frame(header: FrameHeader(type: .helloAck), body: ByteBuffer(bytes: [0, 1]))
        #expect(Self.received(&state, truncated) == protocolError)

        state = Self.fresh()
        #expect(Self.received(&state, Self.response(1)) == protocolError)
    }

    // MARK: Calls

    @Test("calls beyond the server's limit wait in the queue; past the queue, or with an id in use, they fail")
    func callsInFlight() {
        var state = Self.ready(maxInFlight: 2)
        #expect(Self.start(&state, 1) == .send(1))
        #expect(Self.start(&state, 2) == .send(2))
        #expect(Self.start(&state, 3) == nil)
        #expect(Self.start(&state, 4) == .fail(4, .overloaded))
        #expect(Self.start(&state, 1) == .fail(1, .unavailable))
        #expect(state.calls.count == 3)
        #expect(Self.received(&state, Self.response(2)) == [.succeed(2), .send(3)])
        #expect(state.calls.count == 2)
    }

    @Test("answers out of order reach their own callers")
    func answersOutOfOrder() {
        var state = Self.ready(maxInFlight: 3)
        for id: UInt32 in 1...3 { #expect(Self.start(&state, id) == .send(id)) }
        #expect(Self.received(&state, Self.response(3)) == [.succeed(3)])
        let error = Frame.error(id: 1, status: .notFound, body: ByteBuffer())
        #expect(state.received(error, now: Self.now) == [.succeed(1, error)])
        #expect(Self.received(&state, Self.response(2)) == [.succeed(2)])
        #expect(state.calls.isEmpty)
    }

    @Test("an answer for a call not in flight (unknown, or still queued) is a protocol error")
    func answerNotInFlight() {
        var state = Self.ready(maxInFlight: 1)
        #expect(Self.start(&state, 1) == .send(1))
        #expect(Self.start(&state, 2) == nil)
        let steps = Self.received(&state, Self.response(2))
        #expect(steps.prefix(2) == [.goAway(.protocolError), .stopTimers])
        #expect(Set(steps.dropFirst(2).dropLast()) == [.fail(1, .connectionLost), .fail(2, .unavailable)])
        #expect(steps.last == .flushAndClose)
        #expect(Self.received(&state, Self.response(7)) == [])
    }

    @Test("stopping a sent call sends CANCEL and keeps its id until the answer, which is dropped")
    func stopSentCall() {
        var state = Self.ready(maxInFlight: 1)
        #expect(Self.start(&state, 1) == .send(1))
        #expect(Self.start(&state, 2) == nil)
        #expect(Self.steps(state.stop(id: 1, error: .cancelled())) == [.write(.cancel, id: 1), .fail(1, .cancelled)])
        #expect(state.stop(id: 1, error: .cancelled()) == [])
        #expect(Self.start(&state, 1) == .fail(1, .unavailable))
        #expect(Self.received(&state, Self.response(1)) == [.send(2)])
    }

    @Test("stopping a queued call drops it without telling the server")
    func stopQueuedCall() {
        var state = Self.ready(maxInFlight: 1)
        #expect(Self.start(&state, 1) == .send(1))
        #expect(Self.start(&state, 2) == nil)
        #expect(Self.steps(state.stop(id: 2, error: .cancelled())) == [.fail(2, .cancelled)])
        #expect(Self.received(&state, Self.response(1)) == [.succeed(1)])
    }

    @Test("a passed deadline fails the call; a sent one is cancelled on the server")
    func deadlines() {
        var state = Self.ready(maxInFlight: 1)
        #expect(Self.start(&state, 1, deadline: Self.now + .seconds(1)) == .send(1))
        #expect(Self.start(&state, 2, deadline: Self.now + .seconds(2)) == nil)
        #expect(state.expireDeadlines(now: Self.now + .milliseconds(500)) == [])
        let first = Self.steps(state.expireDeadlines(now: Self.now + .seconds(1)))
        #expect(first == [.write(.cancel, id: 1), .fail(1, .deadlineExceeded)])
        #expect(Self.steps(state.expireDeadlines(now: Self.now + .seconds(2))) == [.fail(2, .deadlineExceeded)])
        #expect(state.expireDeadlines(now: Self.now + .seconds(3)) == [])
    }

    // MARK: GOAWAY and closing

    @Test("GOAWAY fails the queued calls, lets sent ones finish, then closes")
    func goAwayDrain() {
        var state = Self.ready(maxInFlight: 1)
        #expect(Self.start(&state, 1) == .send(1))
        #expect(Self.start(&state, 2) == nil)
        let goAway = Frame.goAway(reason: .shutdown, body: GoAwayBody(message: "bye").encoded())
        #expect(Self.received(&state, goAway) == [.fail(2, .unavailable)])
        #expect(state.state == .draining)
        #expect(Self.start(&state, 3) == .fail(3, .unavailable))
        #expect(Self.received(&state, Self.frame(.ping, id: 5)) == [.write(.pong, id: 5)])
        #expect(Self.received(&state, goAway) == [])
        #expect(Self.received(&state, Self.response(1)) == [.succeed(1), .flushAndClose])
    }

    @Test("GOAWAY on an unused connection closes it at once")
    func goAwayIdle() {
        var state = Self.ready()
        let goAway = Frame.goAway(reason: .idleTimeout, body: GoAwayBody(message: "idle").encoded())
        #expect(Self.received(&state, goAway) == [.flushAndClose])
    }

    @Test("closing gracefully sends GOAWAY and drains; during the handshake it just closes")
    func closeGracefully() {
        var state = Self.ready()
        #expect(Self.start(&state, 1) == .send(1))
        #expect(Self.steps(state.closeGracefully()) == [.goAway(.shutdown)])
        #expect(state.closeGracefully() == [])
        #expect(Self.received(&state, Self.response(1)) == [.succeed(1), .flushAndClose])

        var handshaking = Self.fresh()
        #expect(handshaking.closeGracefully() == [.close])
    }

    @Test("a draining connection closes once no caller waits, without the answers of calls given up on")
    func drainSkipsAbandonedCalls() {
        var state = Self.ready()
        #expect(Self.start(&state, 1) == .send(1))
        #expect(Self.start(&state, 2) == .send(2))
        let stopped = Self.steps(state.stop(id: 1, error: .deadlineExceeded()))
        #expect(stopped == [.write(.cancel, id: 1), .fail(1, .deadlineExceeded)])
        #expect(Self.steps(state.closeGracefully()) == [.goAway(.shutdown)])
        #expect(Self.received(&state, Self.response(2)) == [.succeed(2), .flushAndClose])
        #expect(Self.received(&state, Self.response(1)) == [], "a late answer neither reaches anyone nor closes twice")

        var abandonedOnly = Self.ready()
        #expect(Self.start(&abandonedOnly, 1) == .send(1))
        _ = abandonedOnly.stop(id: 1, error: .cancelled())
        #expect(Self.steps(abandonedOnly.closeGracefully()) == [.goAway(.shutdown), .flushAndClose])

        var stoppedWhileDraining = Self.ready()
        #expect(Self.start(&stoppedWhileDraining, 1) == .send(1))
        #expect(Self.steps(stoppedWhileDraining.closeGracefully()) == [.goAway(.shutdown)])
        let last = Self.steps(stoppedWhileDraining.stop(id: 1, error: .deadlineExceeded()))
        #expect(last == [.write(.cancel, id: 1), .fail(1, .deadlineExceeded), .flushAndClose])
    }

    @Test("losing the connection fails sent calls as lost and queued ones as unavailable, once")
    func shutDown() {
        var state = Self.ready(maxInFlight: 1)
        #expect(Self.start(&state, 1) == .send(1))
        #expect(Self.start(&state, 2) == nil)
        let steps = Self.steps(state.shutDown(reason: RPCError(.connectionLost, "gone")))
        #expect(steps.first == .stopTimers)
        #expect(Set(steps.dropFirst()) == [.fail(1, .connectionLost), .fail(2, .unavailable)])
        #expect(state.state == .closed)
        #expect(state.calls.isEmpty)
        #expect(state.shutDown(reason: RPCError(.connectionLost, "gone")) == [])
        #expect(Self.received(&state, Self.response(1)) == [])
        #expect(Self.start(&state, 3) == .fail(3, .unavailable))
    }

    @Test("losing the connection during the handshake fails the handshake")
    func shutDownHandshaking() {
        var state = Self.fresh()
        #expect(
            Self.steps(state.shutDown(reason: RPCError(.connectionLost, "gone"))) == [
                .handshakeFailed(.unavailable), .stopTimers,
            ]
        )
    }

    @Test("frames a server may not send are a protocol error")
    func unexpectedFrames() {
        for type in [FrameType.hello, .helloAck, .request, .cancel] {
            var state = Self.ready()
            #expect(
                Self.received(&state, Self.frame(type, id: 1)) == [
                    .goAway(.protocolError), .stopTimers, .flushAndClose,
                ]
            )
        }
    }

    static func frame(_ type: FrameType, id: UInt32) -> Frame { Frame(header: FrameHeader(type: type, id: id)) }

    // MARK: Keepalive and idleness

    @Test("a busy, silent connection is pinged after the interval and given up after the timeout")
    func keepalive() {
        var state = Self.ready()
        let t = Self.now + .seconds(10)
        #expect(state.checkKeepalive(now: t) == [])  // unused: nothing owed, nothing to check
        #expect(Self.start(&state, 1, at: t) == .send(1))
        #expect(state.checkKeepalive(now: t + .milliseconds(500)) == [])
        #expect(Self.steps(state.checkKeepalive(now: t + .seconds(1))) == [.write(.ping, id: 1)])
        #expect(state.checkKeepalive(now: t + .seconds(2)) == [])
        let lost = Self.steps(state.checkKeepalive(now: t + .seconds(3)))
        #expect(lost == [.stopTimers, .fail(1, .connectionLost), .close])
    }

    @Test("anything read after a PING counts as its answer")
    func keepaliveAnswered() {
        var state = Self.ready()
        #expect(Self.start(&state, 1) == .send(1))
        #expect(Self.steps(state.checkKeepalive(now: Self.now + .seconds(1))) == [.write(.ping, id: 1)])
        #expect(Self.received(&state, Self.frame(.pong, id: 1), at: Self.now + .milliseconds(1100)) == [])
        // Not lost: the next PING is due an interval after that read.
        #expect(state.checkKeepalive(now: Self.now + .milliseconds(2000)) == [])
        #expect(Self.steps(state.checkKeepalive(now: Self.now + .milliseconds(2100))) == [.write(.ping, id: 2)])
    }

    @Test("an unused connection leaves before three quarters of the server's idle timeout")
    func idle() {
        var state = Self.ready(idleTimeoutMilliseconds: 4000)
        #expect(Self.start(&state, 1) == .send(1))
        let answered = Self.now + .seconds(1)
        #expect(Self.received(&state, Self.response(1), at: answered) == [.succeed(1)])
        #expect(state.checkKeepalive(now: answered + .milliseconds(2999)) == [])
        let steps = Self.steps(state.checkKeepalive(now: answered + .seconds(3)))
        #expect(steps == [.goAway(.shutdown), .flushAndClose])
        #expect(state.state == .draining)
    }

    @Test("without a server idle timeout an unused connection stays open")
    func noIdleTimeout() {
        var state = Self.ready(idleTimeoutMilliseconds: 0)
        #expect(state.checkKeepalive(now: Self.now + .seconds(3600)) == [])
        #expect(state.state == .ready)
    }
}
