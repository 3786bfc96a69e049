import FoyerRPC
import FoyerTestSupport
import FoyerWire
import NIOCore
import Testing

/// The per-source connection cap on a real server over real sockets: counted at accept (a handshake still under
/// way counts), refused with GOAWAY `too-many-connections`, per client behind a trusted proxy.
@Suite("Per-source connection limits against a real server")
struct ConnectionLimitTests {
    /// No proof asked; a long handshake timeout, so a peer that sends nothing keeps its place for the whole test.
    static func server(
        perSource: Int,
        _ adjust: (inout RPCServerConfiguration) -> Void = { _ in }
    )
        -> RPCServerConfiguration
    {
        ProtocolViolationTests.openServer {
            $0.maxConnectionsPerSource = perSource
            $0.handshakeTimeout = .seconds(120)
            adjust(&$0)
        }
    }

    /// Connects from `source`, sends `header` (a PROXY header), the preface and HELLO in one write, and returns the
    /// peer once HELLO_ACK arrives; `nil` if anything else happens (the connection was refused).
    static func handshake(port: Int, from source: String? = nil, header: [UInt8] = []) async throws -> RawPeer? {
        let peer = try await RawPeer.connect(port: port, from: source)
        var bytes = ByteBuffer(bytes: header)
        Preface.current.encode(into: &bytes)
        Frame(header: FrameHeader(type: .hello), body: HandshakeTesting.plainHello().encoded()).encode(into: &bytes)
        do {
            try await peer.send(bytes)
            if try await peer.nextFrame()?.type == .helloAck { return peer }
        } catch {}
        await peer.close()
        return nil
    }

    /// Connects from `source`, sends `header` if any, and expects GOAWAY `too-many-connections` and the close. (It
    /// sends nothing more, so the close cannot turn into a reset that loses the GOAWAY.)
    static func expectRefused(port: Int, from source: String? = nil, header: [UInt8] = []) async throws {
        let peer = try await RawPeer.connect(port: port, from: source)
        if !header.isEmpty { try await peer.send(header) }
        let goAway = try await peer.expectGoAway()
        #expect(goAway?.reason == .tooManyConnections, "\(String(describing: goAway))")
        #expect(goAway?.message == "too many connections from your address")
        try await peer.expectClosed()
    }

    #if os(Linux)
    // 127.0.0.2 is a loopback address on Linux without any set-up (macOS needs an alias).
    @Test(
        "N connections from one address are accepted, the N+1th is refused, and another address is still accepted"
    )
    func perSource() async throws {
        try await withRPCServer(Self.server(perSource: 3)) { _, port in
            // Given three connections from 127.0.0.1, the first still in its handshake (it has sent nothing)
            let halfOpen = try await RawPeer.connect(port: port)
            let first = try #require(try await Self.handshake(port: port))
            let second = try #require(try await Self.handshake(port: port))
            // When a fourth comes from the same address, it is refused before its handshake
            try await Self.expectRefused(port: port)
            // Then another source is still accepted
            let other = try #require(try await Self.handshake(port: port, from: "127.0.0.2"))

            // A connection the server closes gives its place back.
            try await first.send(
                Frame(header: FrameHeader(type: .hello), body: HandshakeTesting.plainHello().encoded())
            )
            try await ProtocolViolationTests.expectGoAway(first, .protocolError)
            let replacement = try await Self.reconnect(port: port)
            for peer in [halfOpen, second, other, replacement] { await peer.close() }
        }
    }

    /// A new handshaken connection from 127.0.0.1. The server frees a closed connection's place when its channel
    /// has closed, which the peer may see a moment before; a refusal in that moment is retried, a bounded number of
    /// times, each attempt waiting for the server's answer.
    static func reconnect(port: Int) async throws -> RawPeer {
        for _ in 0..<50 {
            if let peer = try await handshake(port: port) { return peer }
        }
        struct PlaceNotReturned: Error {}
        Issue.record("the closed connection's place was never given back")
        throw PlaceNotReturned()
    }
    #endif

    @Test("behind a trusted proxy the client the PROXY header names is capped, IPv6 per /64, not the proxy")
    func proxied() async throws {
        let proxies = try TrustedProxies(parsing: "127.0.0.1")
        let configuration = Self.server(perSource: 2) { $0.trustedProxies = proxies }
        try await withRPCServer(configuration) { _, port in
            func header(_ client: String, _ family: String = "TCP4") -> [UInt8] {
                let server = family == "TCP4" ? "127.0.0.1" : "::1"
                return Array("PROXY \(family) \(client) \(server) 40000 7400\r\n".utf8)
            }
            var open: [RawPeer] = []
            // Two connections for one client through the proxy are accepted, a third is refused
            for _ in 0..<2 {
                open.append(try #require(try await Self.handshake(port: port, header: header("203.0.113.9"))))
            }
            try await Self.expectRefused(port: port, header: header("203.0.113.9"))
            // Another client through the same proxy is accepted: the proxy's own address is not capped
            open.append(try #require(try await Self.handshake(port: port, header: header("203.0.113.10"))))
            // Two addresses of one IPv6 /64 are one source; the next /64 is another
            let six = header("2001:db8:1:2::1", "TCP6")
            open.append(try #require(try await Self.handshake(port: port, header: six)))
            let sameSixtyFour = header("2001:db8:1:2:ffff::9", "TCP6")
            open.append(try #require(try await Self.handshake(port: port, header: sameSixtyFour)))
            try await Self.expectRefused(port: port, header: header("2001:db8:1:2::77", "TCP6"))
            open.append(try #require(try await Self.handshake(port: port, header: header("2001:db8:1:3::1", "TCP6"))))
            for peer in open { await peer.close() }
        }
    }
}
