import FoyerRPC
import FoyerTestSupport
import FoyerWire
import MetricsTestKit
import Testing

/// The RPC runtime's metrics, recorded into a factory of the test's own (no global bootstrap).
@Suite("RPC metrics")
struct RPCMetricsTests {
    static let missing = RPCMethod<Empty, Empty>(id: 0x00FE, name: "test.missing", idempotent: true)

    @Test("every answered call is counted by method and status on the server and the client, with its duration")
    func callsAreCounted() async throws {
        let serverMetrics = TestMetrics()
        let clientMetrics = TestMetrics()
        var configuration = testServerConfiguration(service: "test")
        configuration.metrics = RPCMetrics(factory: serverMetrics)
        try await withRPCServer(configuration, router: SleepProbe().router()) { _, port in
            try await withTestClient(
                port: port,
                adjust: {
                    $0.metrics = RPCMetrics(factory: clientMetrics)
                    $0.maxAttempts = 1
                    $0.connectionsMax = 1
                }
            ) { client async throws in
                _ = try await client.call(TestMethods.sum, SumRequest(values: [1, 2]))
                _ = try await client.call(TestMethods.sum, SumRequest(values: [3]))
                await #expect(throws: RPCError.self) {
                    try await client.call(TestMethods.fail, FailRequest(status: .notFound))
                }
                await #expect(throws: RPCError.self) { try await client.call(TestMethods.crash, Empty()) }
                await #expect(throws: RPCError.self) { try await client.call(Self.missing, Empty()) }

                // The connection the calls went over is open.
                let connections = try serverMetrics.expectMeter("foyer_rpc_server_connections", [("service", "test")])
                #expect(connections.lastValue == 1)
            }
        }
        func served(_ method: String, _ status: String) -> Int64 {
            serverMetrics.counterTotal(
                label: "foyer_rpc_server_calls_total",
                dimensions: [("service", "test"), ("method", method), ("status", status)]
            )
        }
        #expect(served("sum", "ok") == 2)
        #expect(served("fail", "not-found") == 1)
        #expect(served("crash", "internal") == 1)
        #expect(served("unknown", "unimplemented") == 1)
        let durations = serverMetrics.timers(
            label: "foyer_rpc_server_call_duration_seconds",
            dimensions: [("service", "test"), ("method", "sum")]
        )
        #expect(durations.flatMap(\.values).count == 2)
        #expect(durations.flatMap(\.values).allSatisfy { $0 >= 0 })

        func called(_ method: String, _ status: String) -> Int64 {
            clientMetrics.counterTotal(
                label: "foyer_rpc_client_calls_total",
                dimensions: [("upstream", "test"), ("method", method), ("status", status)]
            )
        }
        #expect(called("sum", "ok") == 2)
        #expect(called("fail", "not-found") == 1)
        #expect(called("missing", "unimplemented") == 1)
        #expect(
            clientMetrics.timers(label: "foyer_rpc_client_call_duration_seconds").flatMap(\.values).count == 5
        )
    }

    @Test("method labels drop the service prefix; status labels name the status or say ok")
    func labels() {
        #expect(RPCMetrics.methodLabel("identity.createGuest") == "createGuest")
        #expect(RPCMetrics.methodLabel("health") == "health")
        let runtimeNames = RPCMetrics(factory: TestMetrics())
        #expect(runtimeNames.statusLabel(nil) == "ok")
        #expect(runtimeNames.statusLabel(.deadlineExceeded) == "deadline-exceeded")
        #expect(runtimeNames.statusLabel(RPCStatus(rawValue: 0x3203)) == "status-0x3203")
        let named = RPCMetrics(factory: TestMetrics()) { $0.rawValue == 0x3203 ? "quota-exceeded" : "other" }
        #expect(named.statusLabel(RPCStatus(rawValue: 0x3203)) == "quota-exceeded")
    }
}
