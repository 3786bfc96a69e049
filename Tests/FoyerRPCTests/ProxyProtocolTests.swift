import FoyerTestSupport
import FoyerWire
import NIOCore
import Testing

@testable import FoyerRPC

@Suite("PROXY protocol headers")
struct ProxyProtocolTests {
    // MARK: Parsing

    static func parse(_ bytes: [UInt8]) throws -> (header: ProxyHeader?, rest: Int) {
        var buffer = ByteBuffer(bytes: bytes)
        let header = try ProxyHeader.parse(&buffer)
        return (header, buffer.readableBytes)
    }

    static func v2(command: UInt8 = 0x1, family: UInt8, addresses: [UInt8]) -> [UInt8] {
        ProxyHeader.v2Signature + [0x20 | command, family, UInt8(addresses.count >> 8), UInt8(addresses.count & 0xFF)]
            + addresses
    }

    @Test("v1 TCP4 and TCP6 headers give the client's address and leave what follows")
    func v1() throws {
        let tcp4 = try Self.parse(Array("PROXY TCP4 203.0.113.9 10.0.0.1 51234 7400\r\nFOYR".utf8))
        #expect(tcp4.header == .client(try SocketAddress(ipAddress: "203.0.113.9", port: 51234)))
        #expect(tcp4.rest == 4)
        let tcp6 = try Self.parse(Array("PROXY TCP6 2001:db8::7 2001:db8::1 4000 7400\r\n".utf8))
        #expect(tcp6.header == .client(try SocketAddress(ipAddress: "2001:db8::7", port: 4000)))
        #expect(try Self.parse(Array("PROXY UNKNOWN\r\n".utf8)).header == .unknown)
    }

    @Test("an incomplete header asks for more bytes and consumes nothing")
    func incomplete() throws {
        for prefix in ["P", "PROXY TCP4 203.0.113.9 10.0.0.1 5", "PROXY TCP4 203.0.113.9 10.0.0.1 51234 7400\r"] {
            let result = try Self.parse(Array(prefix.utf8))
            #expect(result.header == nil && result.rest == prefix.utf8.count, "\(prefix)")
        }
        let full = Self.v2(family: 0x11, addresses: [203, 0, 113, 9, 10, 0, 0, 1, 0x1F, 0x90, 0x1C, 0xE8])
        for length in [1, 12, 15, 16, full.count - 1] {
            #expect(try Self.parse(Array(full.prefix(length))).header == nil, "\(length) bytes")
        }
    }

    @Test("v2 PROXY over TCP4 and TCP6; LOCAL and UNSPEC keep the socket's address")
    func v2() throws {
        let tcp4 = try Self.parse(
            Self.v2(family: 0x11, addresses: [203, 0, 113, 9, 10, 0, 0, 1, 0x1F, 0x90, 0x1C, 0xE8]) + [1, 2]
        )
        #expect(tcp4.header == .client(try SocketAddress(ipAddress: "203.0.113.9", port: 0x1F90)))
        #expect(tcp4.rest == 2)
        var six = [UInt8](repeating: 0, count: 36)
        six[0] = 0x20; six[1] = 0x01; six[2] = 0x0D; six[3] = 0xB8; six[15] = 7
        six[32] = 0x12; six[33] = 0x34
        #expect(
            try Self.parse(Self.v2(family: 0x21, addresses: six)).header
                == .client(try SocketAddress(ipAddress: "2001:db8::7", port: 0x1234))
        )
        #expect(try Self.parse(Self.v2(command: 0x0, family: 0x00, addresses: [])).header == .unknown)
        #expect(try Self.parse(Self.v2(family: 0x00, addresses: [])).header == .unknown)
    }

    @Test(
        "malformed headers are refused",
        arguments: [
            Array("GET / HTTP/1.1\r\n".utf8),
            Array("PROXY TCP4 203.0.113.9 10.0.0.1 51234\r\n".utf8),
            Array("PROXY TCP4 2001:db8::7 10.0.0.1 1 2\r\n".utf8),
            Array("PROXY TCP4 203.0.113.9 10.0.0.1 99999 7400\r\n".utf8),
            Array("PROXY SCTP 203.0.113.9 10.0.0.1 1 2\r\n".utf8),
            Array("PROXY TCP4 203.0.113.9 10.0.0.1 1 2\n".utf8),
            Array(("PROXY TCP4 " + String(repeating: "9", count: 120)).utf8),
            ProxyHeader.v2Signature + [0x11, 0x11, 0, 12] + [UInt8](repeating: 0, count: 12),
            ProxyHeader.v2Signature + [0x21, 0x11, 0, 4, 1, 2, 3, 4],
            ProxyHeader.v2Signature + [0x21, 0x11, 0x10, 0x00],
        ]
    )
    func malformed(bytes: [UInt8]) {
        #expect(throws: ProxyHeader.Invalid.self) { try Self.parse(bytes) }
    }

    @Test("networks match addresses by prefix; IPv4-mapped IPv6 counts as IPv4")
    func networks() throws {
        let proxies = try TrustedProxies(parsing: "10.0.0.0/8, 192.0.2.7 ,2001:db8::/32")
        #expect(proxies.networks.map(\.description) == ["10.0.0.0/8", "192.0.2.7/32", "2001:db8::/32"])
        #expect(proxies.contains(try SocketAddress(ipAddress: "10.200.3.4", port: 1)))
        #expect(proxies.contains(try SocketAddress(ipAddress: "::ffff:10.1.1.1", port: 1)))
        #expect(proxies.contains(try SocketAddress(ipAddress: "192.0.2.7", port: 1)))
        #expect(!proxies.contains(try SocketAddress(ipAddress: "192.0.2.8", port: 1)))
        #expect(proxies.contains(try SocketAddress(ipAddress: "2001:db8:ffff::1", port: 1)))
        #expect(!proxies.contains(try SocketAddress(ipAddress: "2001:db9::1", port: 1)))
        #expect(!proxies.contains(nil))
        #expect(IPNetwork("10.0.0.0/33") == nil && IPNetwork("example.com") == nil && IPNetwork("10.0.0.1/") == nil)
        #expect(throws: RPCError.self) { try TrustedProxies(parsing: "10.0.0.0/8,nonsense") }
    }

    // MARK: Against a real server

    static let peerMethod = RPCMethod<RawBody, RawBody>(id: 0x7001, name: "peer", idempotent: true)

    /// A server that answers `peer` with the address its handler sees, trusting `proxies`.
    static func withServer(trusting proxies: String, _ body: @Sendable (Int) async throws -> Void) async throws {
        var configuration = testServerConfiguration(secret: nil)
        configuration.trustedProxies = try TrustedProxies(parsing: proxies)
        var router = RPCRouter()
        router.register(peerMethod) { _, context in
            RawBody(ByteBuffer(string: context.peerAddress?.ipAddress ?? "none"))
        }
        try await withRPCServer(configuration, router: router) { _, port in try await body(port) }
    }

    /// Sends `header` (in two pieces, to cross a read boundary), the handshake and one `peer` call; returns the answer.
    static func peerSeen(port: Int, header: [UInt8]) async throws -> String? {
        let peer = try await RawPeer.connect(port: port)
        defer { Task { await peer.close() } }
        let split = header.count / 2
        try await peer.send(Array(header[..<split]))
        try await peer.send(Array(header[split...]))
        try await peer.sendPrefaceAndHello(HandshakeTesting.plainHello())
        guard let ack = try await peer.nextFrame(), ack.type == .helloAck else { return nil }
        try await peer.send(Frame.request(id: 1, method: peerMethod.id, body: ByteBuffer()))
        guard let answer = try await peer.nextFrame(), answer.type == .response else { return nil }
        return String(buffer: answer.body)
    }

    @Test("from a trusted proxy, handlers see the address in the PROXY header (v1 and v2)")
    func trusted() async throws {
        try await Self.withServer(trusting: "127.0.0.1") { port async throws in
            #expect(
                try await Self.peerSeen(port: port, header: Array("PROXY TCP4 203.0.113.9 127.0.0.1 5 7400\r\n".utf8))
                    == "203.0.113.9"
            )
            let v2 = Self.v2(family: 0x11, addresses: [198, 51, 100, 4, 127, 0, 0, 1, 0, 5, 0x1C, 0xE8])
            #expect(try await Self.peerSeen(port: port, header: v2) == "198.51.100.4")
            #expect(
                try await Self.peerSeen(port: port, header: Self.v2(command: 0x0, family: 0x00, addresses: []))
                    == "127.0.0.1"
            )
        }
    }

    @Test("from a trusted proxy a connection without a header is closed")
    func trustedWithoutHeader() async throws {
        try await Self.withServer(trusting: "127.0.0.0/8") { port async throws in
            let peer = try await RawPeer.connect(port: port)
            try await peer.sendPrefaceAndHello(HandshakeTesting.plainHello())
            try await peer.expectClosed()
        }
    }

    @Test("from anyone else a PROXY header is a protocol error, and the socket's address counts")
    func untrusted() async throws {
        try await Self.withServer(trusting: "10.0.0.0/8") { port async throws in
            let peer = try await RawPeer.connect(port: port)
            try await peer.send(Array("PROXY TCP4 203.0.113.9 127.0.0.1 5 7400\r\n".utf8))
            let goAway = try await peer.expectGoAway()
            #expect(goAway?.reason == .protocolError)
            try await peer.expectClosed()
            #expect(try await Self.peerSeen(port: port, header: []) == "127.0.0.1")
        }
    }
}
