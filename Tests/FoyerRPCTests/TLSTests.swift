import FoyerRPC
import FoyerTestSupport
import FoyerWire
import NIOCore
import NIOPosix
import NIOSSL
import Testing

/// RPC over TLS: a server with a certificate from a CA made for the test (`scripts/make-dev-certs.sh`), and clients
/// that trust that CA, another one, or speak no TLS at all. The long connect and call timeouts with the suite's time
/// limit make a client that hangs instead of failing fail the test.
@Suite("RPC over TLS", .timeLimit(.minutes(1)))
struct TLSTests {
    static let certificates = Result { try DevCertificates.make() }
    static let otherCA = Result { try DevCertificates.make() }

    func tlsServer(secret: ClusterSecret? = testClusterSecret) throws -> RPCServerConfiguration {
        var configuration = testServerConfiguration(secret: secret)
        configuration.tls = try Self.certificates.get().server.makeServerContext()
        configuration.handshakeTimeout = .minutes(5)
        return configuration
    }

    static func patient(_ configuration: inout RPCClientConfiguration) {
        configuration.connectTimeout = .minutes(5)
        configuration.defaultCallTimeout = .minutes(5)
        configuration.maxAttempts = 1
    }

    @Test(
        "echo and health round-trip over TLS, the certificate checked by IP address or by name",
        arguments: [
            nil, "localhost",
        ]
    )
    func roundTrip(serverName: String?) async throws {
        let caFile = try Self.certificates.get().caFile
        try await withRPCServer(try tlsServer()) { _, port in
            try await withTestClient(
                port: port,
                adjust: {
                    $0.tls = RPCClientTLS(trustRoots: .caFile(caFile), serverName: serverName)
                    Self.patient(&$0)
                }
            ) { client async throws in
                let large = ByteBuffer(string: String(repeating: "guest data ", count: 20_000))
                #expect(try await client.call(BuiltinMethods.echo, RawBody(large)).bytes == large)
                #expect(try await client.call(BuiltinMethods.health, Empty()).state == .serving)
            }
        }
    }

    @Test("a client that does not trust the server's CA is refused", arguments: ["other CA", "system"])
    func untrustedCertificate(trust: String) async throws {
        let tls =
            trust == "system"
            ? RPCClientTLS(trustRoots: .system) : RPCClientTLS(trustRoots: .caFile(try Self.otherCA.get().caFile))
        try await withRPCServer(try tlsServer()) { _, port in
            try await withTestClient(
                port: port,
                adjust: {
                    $0.tls = tls
                    Self.patient(&$0)
                }
            ) { client async throws in
                let error = await #expect(throws: RPCError.self) {
                    try await client.call(BuiltinMethods.echo, RawBody(ByteBuffer(string: "secret")))
                }
                #expect(error?.status != .deadlineExceeded)
            }
        }
    }

    @Test("a plaintext client of a TLS server fails at once")
    func plaintextClientOfTLSServer() async throws {
        try await withRPCServer(try tlsServer()) { _, port in
            try await withTestClient(port: port, adjust: { Self.patient(&$0) }) { client async throws in
                let error = await #expect(throws: RPCError.self) {
                    try await client.call(BuiltinMethods.echo, RawBody(ByteBuffer(string: "hello")))
                }
                #expect(error?.status != .deadlineExceeded)
            }
        }
    }

    @Test("a TLS client of a plaintext server fails at once")
    func tlsClientOfPlaintextServer() async throws {
        var configuration = testServerConfiguration()
        configuration.handshakeTimeout = .minutes(5)
        let caFile = try Self.certificates.get().caFile
        try await withRPCServer(configuration) { _, port in
            try await withTestClient(
                port: port,
                adjust: {
                    $0.tls = RPCClientTLS(trustRoots: .caFile(caFile))
                    Self.patient(&$0)
                }
            ) { client async throws in
                let error = await #expect(throws: RPCError.self) {
                    try await client.call(BuiltinMethods.echo, RawBody(ByteBuffer(string: "hello")))
                }
                #expect(error?.status != .deadlineExceeded)
            }
        }
    }

    @Test("a key that does not match the certificate, or a missing file, stops the start")
    func badServerFiles() throws {
        let certificates = try Self.certificates.get()
        var mismatched = certificates.server
        mismatched.keyPath = certificates.caKeyFile
        #expect(throws: RPCError.self) { try mismatched.makeServerContext() }
        var missing = certificates.server
        missing.certificatePath = certificates.directory.appendingPathComponent("absent.pem").path
        #expect(throws: RPCError.self) { try missing.makeServerContext() }
        #expect(throws: RPCError.self) { try RPCClientTLS(trustRoots: .caFile(missing.certificatePath)).makeContext() }
    }

    @Test("behind a trusted proxy the PROXY header comes first, in plaintext, then TLS, then the frames")
    func proxyHeaderBeforeTLS() async throws {
        var configuration = try tlsServer(secret: nil)
        configuration.trustedProxies = try TrustedProxies(parsing: "127.0.0.1")
        var router = RPCRouter()
        router.register(ProxyProtocolTests.peerMethod) { _, context in
            RawBody(ByteBuffer(string: context.peerAddress?.ipAddress ?? "none"))
        }
        let tls = try RPCClientTLS(trustRoots: .caFile(try Self.certificates.get().caFile)).makeContext()
        let header = Array("PROXY TCP4 203.0.113.9 127.0.0.1 5 7400\r\n".utf8)
        try await withRPCServer(configuration, router: router) { _, port in
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(HeaderFirst(header: header))
                        try channel.pipeline.syncOperations.addHandler(
                            NIOSSLClientHandler(context: tls, serverHostname: nil)
                        )
                        try channel.pipeline.syncOperations.addHandler(
                            ByteToMessageHandler(FrameDecoder(expectsPreface: false, frameLengthMax: 1 << 20))
                        )
                        return try NIOAsyncChannel<Frame, ByteBuffer>(wrappingChannelSynchronously: channel)
                    }
                }
            try await channel.executeThenClose { inbound, outbound in
                var hello = ByteBuffer()
                Preface.current.encode(into: &hello)
                Frame(header: FrameHeader(type: .hello), body: HandshakeTesting.plainHello().encoded())
                    .encode(into: &hello)
                try await outbound.write(hello)
                var frames = inbound.makeAsyncIterator()
                #expect(try await frames.next()?.type == .helloAck)
                var request = ByteBuffer()
                Frame.request(id: 1, method: ProxyProtocolTests.peerMethod.id, body: ByteBuffer()).encode(
                    into: &request
                )
                try await outbound.write(request)
                let answer = try await frames.next()
                #expect(answer?.type == .response)
                #expect(answer.map { String(buffer: $0.body) } == "203.0.113.9")
            }
        }
    }

    @Test("the per-source connection cap applies before TLS: over it, a plaintext GOAWAY and the close")
    func connectionCapBeforeTLS() async throws {
        var configuration = try tlsServer()
        configuration.maxConnectionsPerSource = 1
        let caFile = try Self.certificates.get().caFile
        try await withRPCServer(configuration) { _, port in
            try await withTestClient(
                port: port,
                adjust: {
                    $0.tls = RPCClientTLS(trustRoots: .caFile(caFile))
                    $0.connectionsMax = 1
                    Self.patient(&$0)
                }
            ) { client async throws in
                #expect(try await client.call(BuiltinMethods.health, Empty()).state == .serving)
                let peer = try await RawPeer.connect(port: port)
                let goAway = try await peer.expectGoAway()
                #expect(goAway?.reason == .tooManyConnections)
                try await peer.expectClosed()
            }
        }
    }

    @Test(
        "TLS 1.2 offers Mozilla's intermediate suites only: no CBC, no SHA-1 MAC, no static RSA",
        arguments: [
            ("ECDHE-ECDSA-AES128-GCM-SHA256", true), ("ECDHE-ECDSA-CHACHA20-POLY1305", true),
            ("ECDHE-ECDSA-AES128-SHA", false), ("ECDHE-ECDSA-AES256-SHA", false), ("AES128-SHA", false),
            ("AES128-GCM-SHA256", false),
        ]
    )
    func tls12CipherSuites(suite: String, accepted: Bool) async throws {
        try await withRPCServer(try tlsServer()) { _, port in
            let succeeded = try await Self.handshakeSucceeds(port: port, tls12Suite: suite)
            #expect(succeeded == accepted)
        }
    }

    /// Whether a TLS 1.2 client offering only `tls12Suite` completes a handshake with the server on `port`: its first
    /// write waits for the handshake, and fails with it.
    private static func handshakeSucceeds(port: Int, tls12Suite: String) async throws -> Bool {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        tls.maximumTLSVersion = .tlsv12
        tls.cipherSuites = tls12Suite
        tls.certificateVerification = .none
        let context = try NIOSSLContext(configuration: tls)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).channelInitializer {
            channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHandler(
                    NIOSSLClientHandler(context: context, serverHostname: nil)
                )
            }
        }.connect(host: "127.0.0.1", port: port).get()
        defer { channel.close(promise: nil) }
        do {
            try await channel.writeAndFlush(ByteBuffer(bytes: Array("FOYR".utf8) + [0, 1, 0, 1])).get()
            return true
        } catch {
            return false
        }
    }
}

/// Writes a PROXY header as soon as the connection is up, before the TLS handler after it starts its handshake.
private final class HeaderFirst: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let header: [UInt8]

    init(header: [UInt8]) { self.header = header }

    func channelActive(context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: header)), promise: nil)
        context.fireChannelActive()
    }
}
