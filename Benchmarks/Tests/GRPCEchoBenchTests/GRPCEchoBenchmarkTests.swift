import FoyerBenchKit
import Testing

import GRPCEchoBenchKit

@Suite("GRPCEchoBenchmark")
struct GRPCEchoBenchmarkTests {
    @Test("measures every in-flight level and a plausible wire size per call")
    func shortRun() async throws {
        let result = try await GRPCEchoBenchmark(seconds: 0.2, calibrationCalls: 256).run()

        #expect(result.rows.map(\.inFlight) == RPCLoad.inFlightLevels)
        #expect(result.rows.allSatisfy { $0.system == "grpc-swift-2" && $0.callsPerSecond > 0 })
        #expect(result.wire.calls == 256)
        // At the least, both directions carry the payload, its protobuf tag and length, and gRPC's 5-byte prefix.
        let floor = 2 * (RPCLoad.payloadByteCount + 2 + 5)
        #expect(result.wire.bytesPerCall > floor)
        #expect(result.rows.allSatisfy { $0.bytesOnWirePerCall == result.wire.bytesPerCall })
    }
}
