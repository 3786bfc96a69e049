import Foundation
public import FoyerBenchKit
import GRPCCore
import GRPCNIOTransportHTTP2Posix

/// Small-call round trips over loopback through grpc-swift 2: a unary `Echo` of a protobuf message with one
/// 32-byte `bytes` field, HTTP/2 in plaintext, one client connection, at the same in-flight levels and with the
/// same load loop as `foyer-bench`'s Foyer and raw SwiftNIO rows.
public struct GRPCEchoBenchmark {
    public static let system = "grpc-swift-2"

    /// Measuring time per row.
    public let seconds: Double
    /// Calls counted for the bytes-on-the-wire measurement.
    public let calibrationCalls: Int
    /// In flight during the bytes-on-the-wire measurement.
    public let calibrationInFlight = 64

    public init(seconds: Double, calibrationCalls: Int) {
        self.seconds = seconds
        self.calibrationCalls = calibrationCalls
    }

    /// The timed rows and how their bytes per call were measured.
    public struct Result: Codable, Sendable {
        public var rows: [RPCRow]
        public var wire: WireMeasurement
    }

    /// Starts the server, measures bytes per call, then each in-flight level.
    public func run() async throws -> Result {
        let transport = HTTP2ServerTransport.Posix(
            address: .ipv4(host: "127.0.0.1", port: 0),
            transportSecurity: .plaintext,
            // Room for every level's calls at once, so the client never queues behind a stream limit.
            config: .defaults { $0.http2.maxConcurrentStreams = 512 }
        )
        return try await withGRPCServer(transport: transport, services: [EchoService()]) { server in
            guard let port = try await server.listeningAddress?.ipv4?.port else { throw BenchError.noListeningPort }
            let wire = try await measureWireBytes(serverPort: port)
            let rows = try await measureLatencies(serverPort: port, bytesOnWirePerCall: wire.bytesPerCall)
            return Result(rows: rows, wire: wire)
        }
    }

    /// One client connection straight to the server, each in-flight level driven for `seconds`.
    private func measureLatencies(serverPort: Int, bytesOnWirePerCall: Int) async throws -> [RPCRow] {
        try await Self.withEchoClient(port: serverPort) { echo in
            let request = Self.request()
            _ = try await echo.echo(request)
            var rows: [RPCRow] = []
            for level in RPCLoad.inFlightLevels {
                let latencies = try await RPCLoad.drive(inFlight: level, seconds: seconds) {
                    _ = try await echo.echo(request)
                }
                rows.append(RPCRow(system: Self.system, inFlight: level, seconds: seconds, latencies: latencies, bytesOnWirePerCall: bytesOnWirePerCall))
            }
            return rows
        }
    }

    /// A separate client connection through a byte-counting relay: a warm-up round (connection preface, SETTINGS,
    /// HPACK's dynamic table filling), then `calibrationCalls` counted calls.
    private func measureWireBytes(serverPort: Int) async throws -> WireMeasurement {
        let relay = try await ByteCountingRelay.start(forwardingTo: serverPort)
        let relayPort = try relay.port
        let rounds = max(1, calibrationCalls / calibrationInFlight)
        let measurement = try await Self.withEchoClient(port: relayPort) { echo in
            try await Self.call(echo, rounds: 1, inFlight: calibrationInFlight)
            let before = relay.counter.bytes
            try await Self.call(echo, rounds: rounds, inFlight: calibrationInFlight)
            let bytes = relay.counter.bytes - before
            return WireMeasurement(calls: rounds * calibrationInFlight, inFlight: calibrationInFlight, bytes: bytes)
        }
        try await relay.stop()
        return measurement
    }

    /// `inFlight` tasks each making `rounds` calls one after another.
    private static func call(_ echo: EchoClient, rounds: Int, inFlight: Int) async throws {
        let request = Self.request()
        try await withThrowingDiscardingTaskGroup { group in
            for _ in 0..<inFlight {
                group.addTask {
                    for _ in 0..<rounds { _ = try await echo.echo(request) }
                }
            }
        }
    }

    typealias EchoClient = Foyer_Bench_BenchEcho.Client<HTTP2ClientTransport.Posix>

    private static func withEchoClient<Result: Sendable>(
        port: Int,
        _ body: (EchoClient) async throws -> Result
    ) async throws -> Result {
        let transport = try HTTP2ClientTransport.Posix(
            target: .ipv4(address: "127.0.0.1", port: port),
            transportSecurity: .plaintext
        )
        return try await withGRPCClient(transport: transport) { client in
            try await body(EchoClient(wrapping: client))
        }
    }

    private static func request() -> Foyer_Bench_EchoMessage {
        var message = Foyer_Bench_EchoMessage()
        message.payload = Data(repeating: 0x5A, count: RPCLoad.payloadByteCount)
        return message
    }
}
