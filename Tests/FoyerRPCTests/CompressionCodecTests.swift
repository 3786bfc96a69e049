import FoyerLZ4
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import NIOCore
import Synchronization
import Testing

/// The Swift codec with its calls counted, to see which side ran which codec.
final class CountingCodec: Sendable {
    let compressions = Atomic<Int>(0)
    let decompressions = Atomic<Int>(0)

    var codec: LZ4BlockCodec {
        LZ4BlockCodec(
            name: "counting",
            compressBound: LZ4BlockCodec.swift.compressBound,
            compress: { source, destination in
                self.compressions.add(1, ordering: .relaxed)
                return LZ4BlockCodec.swift.compress(source, destination)
            },
            decompress: { source, destination in
                self.decompressions.add(1, ordering: .relaxed)
                return LZ4BlockCodec.swift.decompress(source, destination)
            }
        )
    }
}

@Suite("RPC compression codecs")
struct CompressionCodecTests {
    static let large = ByteBuffer(string: String(repeating: "guest data ", count: 20_000))

    @Test("the server and the client compress and expand with the codec their configuration names")
    func configuredCodecsRun() async throws {
        let serverCodec = CountingCodec()
        let clientCodec = CountingCodec()
        var configuration = testServerConfiguration()
        configuration.compressionCodec = serverCodec.codec
        try await withRPCServer(configuration) { _, port in
            try await withTestClient(port: port, adjust: { $0.compressionCodec = clientCodec.codec }) {
                client async throws in
                #expect(try await client.call(BuiltinMethods.echo, RawBody(Self.large)).bytes == Self.large)
            }
        }
        // The client compressed the request and expanded the answer; the server did the reverse.
        #expect(clientCodec.compressions.load(ordering: .relaxed) == 1)
        #expect(clientCodec.decompressions.load(ordering: .relaxed) == 1)
        #expect(serverCodec.compressions.load(ordering: .relaxed) == 1)
        #expect(serverCodec.decompressions.load(ordering: .relaxed) == 1)
    }

    @Test(
        "a service on liblz4 and a client on the Swift codec (and the reverse) understand each other",
        arguments: [(LZ4BlockCodec.liblz4, LZ4BlockCodec.swift), (.swift, .liblz4)]
    )
    func mixedCodecs(server: LZ4BlockCodec, client: LZ4BlockCodec) async throws {
        var configuration = testServerConfiguration()
        configuration.compressionCodec = server
        try await withRPCServer(configuration) { _, port in
            try await withTestClient(port: port, adjust: { $0.compressionCodec = client }) { rpc async throws in
                #expect(try await rpc.call(BuiltinMethods.echo, RawBody(Self.large)).bytes == Self.large)
            }
        }
    }

    @Test("an RPC configuration uses the Swift codec unless told otherwise")
    func swiftByDefault() {
        let client = RPCClientConfiguration(host: "h", port: 1, serviceName: "", peerName: "", clusterSecret: nil)
        #expect(client.compressionCodec.name == "swift")
        #expect(RPCServerConfiguration(serviceName: "", clusterSecret: nil).compressionCodec.name == "swift")
    }
}
