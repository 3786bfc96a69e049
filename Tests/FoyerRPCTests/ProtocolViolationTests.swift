import FoyerRPC
import FoyerTestSupport
import FoyerWire
import NIOCore
import Testing

/// Everything malformed a peer can send gets a GOAWAY that says why and a closed connection (or, for a bad
/// request body, an ERROR on a connection that stays open): never a crash, a hang or unbounded memory.
@Suite("Protocol violations against a real server")
struct ProtocolViolationTests {
    /// A server that asks no proof, so raw peers can get past the handshake easily.
    static func openServer(_ adjust: (inout RPCServerConfiguration) -> Void = { _ in }) -> RPCServerConfiguration {
        var configuration = testServerConfiguration(secret: nil)
        adjust(&configuration)
        return configuration
    }

    /// Connects and completes a handshake.
    static func handshaken(port: Int, maxInFlight: UInt16 = 64) async throws -> RawPeer {
        let peer = try await RawPeer.connect(port: port)
        try await peer.sendPrefaceAndHello(HandshakeTesting.plainHello(maxInFlight: maxInFlight))
        let ack = try #require(try await peer.nextFrame())
        #expect(ack.type == .helloAck)
        return peer
    }

    static func expectGoAway(_ peer: RawPeer, _ reason: GoAwayReason) async throws {
        let goAway = try await peer.expectGoAway()
        #expect(goAway?.reason == reason, "GOAWAY: \(String(describing: goAway))")
        try await peer.expectClosed()
    }

    @Test("a wrong preface is answered GOAWAY protocol-error and closed")
    func wrongPreface() async throws {
        try await withRPCServer(Self.openServer()) { _, port in
            let peer = try await RawPeer.connect(port: port)
            try await peer.send(Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            try await Self.expectGoAway(peer, .protocolError)
        }
    }

    @Test("another major version is answered GOAWAY unsupported-version")
    func wrongMajor() async throws {
        try await withRPCServer(Self.openServer()) { _, port in
            let peer = try await RawPeer.connect(port: port)
            try await peer.send([0x46, 0x4F, 0x59, 0x52, 0, 2, 0, 0])
            try await Self.expectGoAway(peer, .unsupportedVersion)
        }
    }

    @Test("a request before HELLO is refused")
    func requestBeforeHello() async throws {
        try await withRPCServer(Self.openServer()) { _, port in
            let peer = try await RawPeer.connect(port: port)
            var bytes = ByteBuffer()
            Preface.current.encode(into: &bytes)
            Frame.request(id: 1, method: 2, body: ByteBuffer()).encode(into: &bytes)
            try await peer.send(bytes)
            try await Self.expectGoAway(peer, .protocolError)
        }
    }

    @Test("HELLO sent twice is refused")
    func helloTwice() async throws {
        try await withRPCServer(Self.openServer()) { _, port in
            let peer = try await Self.handshaken(port: port)
            try await peer.send(Frame(header: FrameHeader(type: .hello), body: HandshakeTesting.plainHello().encoded()))
            try await Self.expectGoAway(peer, .protocolError)
        }
    }

    @Test("a handshake frame over 4 KiB is refused")
    func oversizedHandshake() async throws {
        try await withRPCServer(Self.openServer()) { _, port in
            let peer = try await RawPeer.connect(port: port)
            var bytes = ByteBuffer()
            Preface.current.encode(into: &bytes)
            Frame(header: FrameHeader(type: .hello), body: ByteBuffer(repeating: 0, count: 5000)).encode(into: &bytes)
            try await peer.send(bytes)
            try await Self.expectGoAway(peer, .frameTooLarge)
        }
    }

    @Test("lengths of 0 and 2^32-1 are refused", arguments: [[0, 0, 0, 0], [0xFF, 0xFF, 0xFF, 0xFF]] as [[UInt8]])
    func badLengths(length: [UInt8]) async throws {
        try await withRPCServer(Self.openServer()) { _, port in
            let peer = try await Self.handshaken(port: port)
            try await peer.send(length)
            let goAway = try await peer.expectGoAway()
            #expect(goAway?.reason == (length[0] == 0 ? .protocolError : .frameTooLarge))
            try await peer.expectClosed()
        }
    }

    @Test("unknown types and reserved flags are refused")
    func unknownTypeAndFlags() async throws {
        try await withRPCServer(Self.openServer()) { _, port in
            for header in [
                [0, 0, 0, 12, 0x07, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0],
                [0, 0, 0, 12, 0x01, 0x40, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0],
            ] as [[UInt8]] {
                let peer = try await Self.handshaken(port: port)
                try await peer.send(header)
                try await Self.expectGoAway(peer, .protocolError)
            }
        }
    }

    @Test("a frame truncated by a closing peer leaves the server serving others")
    func truncatedFrame() async throws {
        try await withRPCServer(Self.openServer()) { _, port in
            let peer = try await Self.handshaken(port: port)
            try await peer.send([0, 0, 0, 100, 0x01, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 1, 2])
            await peer.close()
            try await withTestClient(port: port, secret: nil) { client async throws in
                #expect(try await client.call(BuiltinMethods.health, Empty()).state == .serving)
            }
        }
    }

    @Test("a reused in-flight id is refused")
    func reusedID() async throws {
        let probe = SleepProbe()
        try await withRPCServer(Self.openServer(), router: probe.router()) { _, port in
            let peer = try await Self.handshaken(port: port)
            let slow = Frame.request(
                id: 7,
                method: TestMethods.sleep.id,
                body: SleepRequest(milliseconds: 10_000).encoded()
            )
            try await peer.send(slow)
            try await peer.send(slow)
            try await Self.expectGoAway(peer, .protocolError)
        }
    }

    @Test("more requests than the negotiated in-flight limit are answered overloaded, not processed")
    func overInFlightLimit() async throws {
        let probe = SleepProbe()
        try await withRPCServer(Self.openServer(), router: probe.router()) { _, port in
            let peer = try await Self.handshaken(port: port, maxInFlight: 1)
            try await peer.send(
                Frame.request(id: 1, method: TestMethods.sleep.id, body: SleepRequest(milliseconds: 300).encoded())
            )
            try await peer.send(
                Frame.request(id: 2, method: TestMethods.sleep.id, body: SleepRequest(milliseconds: 0).encoded())
            )
            let first = try #require(try await peer.nextFrame())
            #expect(first.type == .error && first.id == 2 && first.header.code == RPCStatus.overloaded.rawValue)
            let second = try #require(try await peer.nextFrame())
            #expect(second.type == .response && second.id == 1)
        }
    }

    @Test("a corrupt LZ4 body is answered GOAWAY compression-error")
    func corruptCompressedBody() async throws {
        try await withRPCServer(Self.openServer()) { _, port in
            let peer = try await Self.handshaken(port: port)
            var body = ByteBuffer()
            body.writeInteger(UInt32(1000))
            body.writeBytes([0xF0, 0xFF, 0xFF, 0xFF, 0x00])
            try await peer.send(
                Frame(header: FrameHeader(type: .request, flags: .compressed, code: 2, id: 1), body: body)
            )
            try await Self.expectGoAway(peer, .compressionError)
        }
    }

    @Test("a declared uncompressed size over the limit is refused without allocating it")
    func declaredSizeOverLimit() async throws {
        try await withRPCServer(Self.openServer()) { _, port in
            let peer = try await Self.handshaken(port: port)
            var body = ByteBuffer()
            body.writeInteger(UInt32.max)
            body.writeBytes([0x10, 0x41])
            try await peer.send(
                Frame(header: FrameHeader(type: .request, flags: .compressed, code: 2, id: 1), body: body)
            )
            try await Self.expectGoAway(peer, .compressionError)
        }
    }

    @Test("a compressed request on a connection without compression is refused")
    func compressionNotNegotiated() async throws {
        try await withRPCServer(Self.openServer()) { _, port in
            let peer = try await RawPeer.connect(port: port)
            try await peer.sendPrefaceAndHello(HandshakeTesting.plainHello(compression: []))
            #expect(try await peer.nextFrame()?.type == .helloAck)
            let compressed = Frame.request(
                id: 1,
                method: 2,
                body: ByteBuffer(string: String(repeating: "a", count: 2000))
            )
            .compressed(threshold: 0, allocator: ByteBufferAllocator())
            try await peer.send(compressed)
            try await Self.expectGoAway(peer, .compressionError)
        }
    }

    @Test("a flood of PING frames is cut off")
    func pingFlood() async throws {
        try await withRPCServer(Self.openServer { $0.pingsPerSecondMax = 5 }) { _, port in
            let peer = try await Self.handshaken(port: port)
            var bytes = ByteBuffer()
            for index in 0..<200 { Frame.ping(id: UInt32(index)).encode(into: &bytes) }
            try await peer.send(bytes)
            try await Self.expectGoAway(peer, .flood)
        }
    }

    @Test("a flood of CANCEL frames for unknown calls is cut off")
    func cancelFlood() async throws {
        try await withRPCServer(Self.openServer { $0.strayCancelsPerSecondMax = 5 }) { _, port in
            let peer = try await Self.handshaken(port: port)
            var bytes = ByteBuffer()
            for index in 1...500 { Frame.cancel(id: UInt32(index)).encode(into: &bytes) }
            try await peer.send(bytes)
            try await Self.expectGoAway(peer, .flood)
        }
    }

    @Test("PING is answered PONG with the same id")
    func pingPong() async throws {
        try await withRPCServer(Self.openServer()) { _, port in
            let peer = try await Self.handshaken(port: port)
            try await peer.send(Frame.ping(id: 4242))
            let pong = try #require(try await peer.nextFrame())
            #expect(pong.type == .pong && pong.id == 4242)
        }
    }

    @Test("a peer that never completes the handshake is closed after the handshake timeout")
    func handshakeTimeout() async throws {
        try await withRPCServer(Self.openServer { $0.handshakeTimeout = .milliseconds(300) }) { _, port in
            let peer = try await RawPeer.connect(port: port)
            // On a loaded machine the server may already have given up; the GOAWAY is what matters.
            try? await peer.send([0x46, 0x4F, 0x59, 0x52])
            try await Self.expectGoAway(peer, .handshakeTimeout)
        }
    }

    @Test("a frame that trickles in too slowly is cut off")
    func slowFrame() async throws {
        try await withRPCServer(Self.openServer { $0.slowFrameTimeout = .milliseconds(300) }) { _, port in
            let peer = try await Self.handshaken(port: port)
            try await peer.send([0, 0, 0, 200, 0x01, 0])
            try await Self.expectGoAway(peer, .slowFrame)
        }
    }

    @Test("an idle connection is closed after the idle timeout")
    func idleTimeout() async throws {
        try await withRPCServer(Self.openServer { $0.idleTimeout = .milliseconds(300) }) { _, port in
            let peer = try await Self.handshaken(port: port)
            try await Self.expectGoAway(peer, .idleTimeout)
        }
    }

    @Test("connections over the limit are refused with too-many-connections")
    func connectionLimit() async throws {
        try await withRPCServer(Self.openServer { $0.maxConnections = 1 }) { _, port in
            let first = try await Self.handshaken(port: port)
            let second = try await RawPeer.connect(port: port)
            try await Self.expectGoAway(second, .tooManyConnections)
            await first.close()
        }
    }
}
