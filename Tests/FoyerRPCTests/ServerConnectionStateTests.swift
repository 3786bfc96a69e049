import FoyerWire
import NIOCore
import Testing

@testable import FoyerRPC

@Suite("Server connection state machine")
struct ServerConnectionStateTests {
    static let now = NIODeadline.uptimeNanoseconds(1_000_000_000)

    static func opened(maxInFlight: Int = 2) -> ServerConnectionState {
        var state = ServerConnectionState(pingsPerSecondMax: 1, strayCancelsPerSecondMax: 1, now: now)
        #expect(state.received(FrameHeader(type: .hello), now: now) == .handshake)
        state.opened(maxInFlight: maxInFlight)
        return state
    }

    @Test("only HELLO may come first")
    func helloFirst() {
        for type in [FrameType.request, .ping, .cancel, .response, .goAway] {
            var state = ServerConnectionState(pingsPerSecondMax: 1, strayCancelsPerSecondMax: 1, now: Self.now)
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
}
