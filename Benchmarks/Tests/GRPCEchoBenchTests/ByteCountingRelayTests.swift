import NIOCore
import NIOPosix
import Testing

import GRPCEchoBenchKit

@Suite("ByteCountingRelay")
struct ByteCountingRelayTests {
    @Test("counts every byte forwarded in both directions")
    func countsBothDirections() async throws {
        // Given an echo server behind the relay
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Echo()) }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        let serverPort = try #require(server.localAddress?.port)
        let relay = try await ByteCountingRelay.start(forwardingTo: serverPort)

        // When a client sends 100 bytes through the relay and reads all of them back
        let client = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: try relay.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        let echoed = try await client.executeThenClose { inbound, outbound in
            try await outbound.write(ByteBuffer(repeating: 0x5A, count: 100))
            var received = 0
            for try await buffer in inbound {
                received += buffer.readableBytes
                if received >= 100 { break }
            }
            return received
        }

        // Then the relay counted the request and the answer
        #expect(echoed == 100)
        #expect(relay.counter.bytes == 200)
        try await relay.stop()
        try await server.close()
    }

    private final class Echo: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            context.writeAndFlush(data, promise: nil)
        }
    }
}
