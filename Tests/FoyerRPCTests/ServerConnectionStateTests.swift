import FoyerWire
import NIOCore
import Testing

@testable import FoyerRPC

@Suite("Server connection state machine")
struct ServerConnectionStateTests {
    static let now = NIODeadline.uptimeNanoseconds(1_000_000_000)

    static let idleTimeout = TimeAmount.seconds(10)

    /// `idleExpired` outside `#expect`, which cannot call a mutating method.
    static func idle(_ state: inout ServerConnectionState, at now: NIODeadline, sending: Bool) -> Bool {
        state.idleExpired(now: now, sending: sending)
    }

    static func opened(maxInFlight: Int = 2, pingsPerSecondMax: Int = 1) -> ServerConnectionState {
        var state = ServerConnectionState(
            pingsPerSecondMax: pingsPerSecondMax,
            strayCancelsPerSecondMax: 1,
            idleTimeout: idleTimeout,
            now: now
        )
        #expect(state.received(FrameHeader(type: .hello), now: now) == .handshake)
        state.opened(maxInFlight: maxInFlight, now: now)
        return state
    }

    @Test("only HELLO may come first")
    func helloFirst() {
        for type in [FrameType.request, .ping, .cancel, .response, .goAway] {
            var state = ServerConnectionState(
                pingsPerSecondMax: 1,
                strayCancelsPerSecondMax: 1,
                idleTimeout: Self.idleTimeout,
                now: Self.now
            )
            #expect(state.received(FrameHeader(type: type, id: 1), now: Self.now) == .close(.protocolError, ""))
        }
    }

    @Test("a second HELLO, and frames only servers send, close the connection")
    func forbiddenAfterOpen() {
        for type in [FrameType.hello, .helloAck, .response, .error] {
            var state = Self.opened()
            #expect(state.received(FrameHeader(type: type, id: 1), now: Self.now) == .close(.protocolError, ""))
        }
    }

    @Test("requests: id 0 and reused ids close, the limit rejects, a finished id is free again")
    func requests() {
        var state = Self.opened(maxInFlight: 2)
        #expect(state.received(FrameHeader(type: .request, id: 0), now: Self.now) == .close(.protocolError, ""))
        #expect(state.received(FrameHeader(type: .request, id: 1), now: Self.now) == .dispatch)
        #expect(state.received(FrameHeader(type: .request, id: 2), now: Self.now) == .dispatch)
        #expect(state.received(FrameHeader(type: .request, id: 3), now: Self.now) == .reject(.overloaded, ""))
        #expect(state.received(FrameHeader(type: .request, id: 1), now: Self.now) == .close(.protocolError, ""))
        #expect(state.finish(id: 1) != nil)
        #expect(state.received(FrameHeader(type: .request, id: 1), now: Self.now) == .dispatch)
    }

    @Test("while draining new requests are rejected unavailable")
    func draining() {
        var state = Self.opened()
        let drained = state.beginDraining()
        let drainedAgain = state.beginDraining()
        #expect(drained)
        #expect(!drainedAgain)
        #expect(state.received(FrameHeader(type: .request, id: 5), now: Self.now) == .reject(.unavailable, ""))
    }

    @Test("CANCEL of an in-flight call records why it stopped; stray CANCELs and PINGs are rate limited")
    func cancelAndFloods() {
        var state = Self.opened()
        #expect(state.received(FrameHeader(type: .request, id: 9), now: Self.now) == .dispatch)
        #expect(state.received(FrameHeader(type: .cancel, id: 9), now: Self.now) == .ignore)
        #expect(state.finish(id: 9)?.stopReason == .cancelled)
        // Burst of 10 at 1/s: the 11th stray CANCEL in the same instant is a flood.
        for id in 100..<110 {
            #expect(state.received(FrameHeader(type: .cancel, id: UInt32(id)), now: Self.now) == .ignore)
        }
        #expect(state.received(FrameHeader(type: .cancel, id: 200), now: Self.now) == .close(.flood, ""))
        var pings = Self.opened()
        for _ in 0..<10 { #expect(pings.received(FrameHeader(type: .ping, id: 1), now: Self.now) == .pong) }
        #expect(pings.received(FrameHeader(type: .ping, id: 1), now: Self.now) == .close(.flood, ""))
        // A second later there is room again.
        #expect(pings.received(FrameHeader(type: .ping, id: 1), now: Self.now + .seconds(1)) == .pong)
    }

    @Test("idle: PINGs do not keep a connection open; REQUEST and CANCEL do, and so does a call in flight")
    func idle() {
        let timeout = Self.idleTimeout
        // Given an open connection that only pings (well within the PING rate limit)
        var state = Self.opened(pingsPerSecondMax: 100)
        var now = Self.now
        for _ in 0..<9 {
            now = now + .seconds(1)
            #expect(state.received(FrameHeader(type: .ping, id: 1), now: now) == .pong)
            #expect(!Self.idle(&state, at: now, sending: false))
        }
        // Then it is idle the idle timeout after it opened, and says so once.
        #expect(Self.idle(&state, at: Self.now + timeout, sending: false))
        #expect(!Self.idle(&state, at: Self.now + timeout + .seconds(1), sending: false))

        // A REQUEST restarts the clock; while the call is in flight the connection is never idle.
        var busy = Self.opened()
        let requestAt = Self.now + .seconds(5)
        #expect(busy.received(FrameHeader(type: .request, id: 1), now: requestAt) == .dispatch)
        #expect(!Self.idle(&busy, at: Self.now + timeout, sending: false))
        #expect(!Self.idle(&busy, at: requestAt + timeout * 3, sending: false))
        // Once answered, the clock runs from the last sweep that saw the call.
        #expect(busy.finish(id: 1) != nil)
        #expect(!Self.idle(&busy, at: requestAt + timeout * 4 - .nanoseconds(1), sending: false))
        #expect(Self.idle(&busy, at: requestAt + timeout * 4, sending: false))

        // Answers still going out to a slow reader are not idleness either.
        var sending = Self.opened()
        #expect(!Self.idle(&sending, at: Self.now + timeout * 2, sending: true))
        #expect(!Self.idle(&sending, at: Self.now + timeout * 3 - .nanoseconds(1), sending: false))

        // A CANCEL (even of a call already answered) restarts the clock.
        var cancelled = Self.opened()
        #expect(cancelled.received(FrameHeader(type: .cancel, id: 7), now: Self.now + .seconds(8)) == .ignore)
        #expect(!Self.idle(&cancelled, at: Self.now + timeout, sending: false))
        #expect(Self.idle(&cancelled, at: Self.now + .seconds(8) + timeout, sending: false))
    }
}
