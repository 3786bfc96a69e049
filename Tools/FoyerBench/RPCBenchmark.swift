import FoyerBenchKit
import FoyerRPC
import FoyerWire
import Logging
import NIOCore
import NIOPosix

/// Small-call round trips over loopback: Foyer's RPC (echo of a 32-byte body through `RPCClient` and
/// `RPCServer`, one connection, cluster-secret authentication, compression negotiated) against a raw SwiftNIO
/// length-prefixed echo on one connection, at 1, 64 and 256 calls in flight.
///
/// The two alternate for `rounds` rounds and each row is the round with the median calls a second: one run of
/// either moves by up to 1.5x on a shared machine, and alternating puts both through the same moments.
struct RPCBenchmark {
    let seconds: Double
    var rounds = 3

    func run() async throws -> [RPCRow] {
        var measured: [RPCRow] = []
        for _ in 0..<max(rounds, 1) {
            measured += try await measureFoyer()
            measured += try await measureRawEcho()
        }
        return Dictionary(grouping: measured) { "\($0.system) \($0.inFlight)" }.values
            .map { rounds in rounds.sorted { $0.callsPerSecond < $1.callsPerSecond }[rounds.count / 2] }
            .sorted { ($0.inFlight, $0.system) < ($1.inFlight, $1.system) }
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
