import FoyerRPC
import FoyerTestSupport
import FoyerWire
import NIOCore
import NIOPosix
import Testing

@Suite("Keepalive")
struct KeepaliveTests {
    static func keepalive(_ configuration: inout RPCClientConfiguration) {
        configuration.keepaliveInterval = .milliseconds(200)
        configuration.keepaliveTimeout = .seconds(1)
    }

    @Test("a long call on a connection that sat idle is kept alive by the server's PONGs")
    func idleThenLongCall() async throws {
        let probe = SleepProbe()
        try await withRPCServer(testServerConfiguration(), router: probe.router()) { _, port in
            try await withTestClient(port: port, adjust: Self.keepalive) { client async throws in
                _ = try await client.call(BuiltinMethods.health, Empty())
                // Idle for longer than interval + timeout: the silence of an idle connection must not count.
                try await Task.sleep(for: .milliseconds(1500))
                _ = try await client.call(TestMethods.sleep, SleepRequest(milliseconds: 1500))
                #expect(probe.completed == 1)
            }
        }
    }

    @Test("a server that completes the handshake and then answers nothing is given up as connection-lost")
    func silentServer() async throws {
        let group = MultiThreadedEventLoopGroup.singleton
        let listener = try await ServerBootstrap(group: group)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(SilentServer()) }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        defer { listener.close(promise: nil) }
        let port = try #require(listener.localAddress?.port)
        try await withTestClient(port: port, secret: nil, adjust: Self.keepalive) { client async throws in
            let error = await #expect(throws: RPCError.self) {
                try await client.call(TestMethods.sleep, SleepRequest(milliseconds: 10))
            }
            #expect(error?.status == .connectionLost, "\(String(describing: error))")
            #expect(error?.message.contains("keepalive") == true, "\(String(describing: error))")
        }
    }
}

/// Answers the first bytes (preface and HELLO) with a HELLO_ACK, then ignores everything: a hung server.
private final class SilentServer: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    private var answered = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        answered = true
        let ack = HelloAck(
            frameLengthMax: 1 << 20,
            maxInFlight: 64,
            compression: [],
            compressionThreshold: 512,
            idleTimeoutMilliseconds: 300_000,
            serverName: "test"
        )
        var bytes = context.channel.allocator.buffer(capacity: 64)
        Frame(header: FrameHeader(type: .helloAck), body: ack.encoded()).encode(into: &bytes)
        context.writeAndFlush(wrapOutboundOut(bytes), promise: nil)
    }
}
