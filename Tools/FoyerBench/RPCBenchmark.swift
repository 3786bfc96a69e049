import FoyerBenchKit
import FoyerRPC
import FoyerWire
import Logging
import NIOCore
import NIOPosix

/// Small-call round trips over loopback: Foyer's RPC (echo of a 32-byte body through `RPCClient` and
/// `RPCServer`, one connection, cluster-secret authentication, compression negotiated) against a raw SwiftNIO
/// length-prefixed echo on one connection, at 1, 64 and 256 calls in flight.
struct RPCBenchmark {
    let seconds: Double

    func run() async throws -> [RPCRow] {
        var rows: [RPCRow] = []
        rows += try await measureFoyer()
        rows += try await measureRawEcho()
        return rows
    }

    private func measureFoyer() async throws -> [RPCRow] {
        let secret = ClusterSecret.generate()
        let logger = Logger(label: "foyer.bench")
        let server = RPCServer(
            configuration: RPCServerConfiguration(serviceName: "bench", clusterSecret: secret),
            router: RPCRouter(),
            logger: logger
        )
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            let port = try await server.boundAddress().port!
            var configuration = RPCClientConfiguration(
                host: "127.0.0.1",
                port: port,
                serviceName: "bench",
                peerName: "bench",
                clusterSecret: secret
            )
            configuration.connectionsMax = 1
            configuration.maxInFlightPerConnection = 512
            let client = RPCClient(configuration: configuration, logger: logger)
            let body = RawBody(ByteBuffer(repeating: 0x5A, count: RPCLoad.payloadByteCount))
            _ = try await client.call(BuiltinMethods.echo, body)
            var rows: [RPCRow] = []
            for level in RPCLoad.inFlightLevels {
                let latencies = try await RPCLoad.drive(inFlight: level, seconds: seconds) {
                    _ = try await client.call(BuiltinMethods.echo, body)
                }
                rows.append(
                    RPCRow(
                        system: "foyer",
                        inFlight: level,
                        seconds: seconds,
                        latencies: latencies,
                        bytesOnWirePerCall: 2 * (FrameHeader.byteCount + RPCLoad.payloadByteCount)
                    )
                )
            }
            await client.shutdown()
            group.cancelAll()
            return rows
        }
    }

    private func measureRawEcho() async throws -> [RPCRow] {
        let server = try await RawEchoServer.start()
        var rows: [RPCRow] = []
        for level in RPCLoad.inFlightLevels {
            let latencies = try await RawEchoClient.measure(
                port: server.port,
                inFlight: level,
                payloadByteCount: RPCLoad.payloadByteCount,
                seconds: seconds
            )
            rows.append(
                RPCRow(
                    system: "raw-nio-echo",
                    inFlight: level,
                    seconds: seconds,
                    latencies: latencies,
                    bytesOnWirePerCall: 2 * (4 + RPCLoad.payloadByteCount)
                )
            )
        }
        try await server.stop()
        return rows
    }
}
