import FoyerRPC
import FoyerTestSupport
import FoyerWire
import NIOCore
import Testing

@Suite("Deadlines, cancellation and retries")
struct RPCDeadlineAndRetryTests {
    /// Polls a condition the server reaches asynchronously, bounded so a failure cannot hang the suite.
    static func eventually(_ condition: @Sendable () -> Bool) async throws -> Bool {
        for _ in 0..<500 {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test("a call past its deadline fails deadline-exceeded, and the server's handler is cancelled")
    func deadlinePropagates() async throws {
        let probe = SleepProbe()
        try await withRPCServer(testServerConfiguration(), router: probe.router()) { _, port in
            try await withTestClient(port: port) { client async throws in
                // Connect first, so the deadline is spent on the call, not on the handshake.
                _ = try await client.call(BuiltinMethods.health, Empty())
                let error = await #expect(throws: RPCError.self) {
                    try await client.call(
                        TestMethods.sleep,
                        SleepRequest(milliseconds: 30_000),
                        options: CallOptions(timeout: .milliseconds(300))
                    )
                }
                #expect(error?.status == .deadlineExceeded)
                // On a loaded machine the deadline may pass before the handler starts; either way it never
                // runs to the end.
                #expect(try await Self.eventually { probe.started == probe.cancelled })
                #expect(probe.completed == 0)
            }
        }
    }

    @Test("cancelling the calling task sends CANCEL and the server stops the handler")
    func cancellationPropagates() async throws {
        let probe = SleepProbe()
        try await withRPCServer(testServerConfiguration(), router: probe.router()) { _, port in
            try await withTestClient(port: port) { client async throws in
                let call = Task {
                    try await client.call(
                        TestMethods.sleep,
                        SleepRequest(milliseconds: 30_000),
                        options: CallOptions(timeout: .seconds(60))
                    )
                }
                #expect(try await Self.eventually { probe.started == 1 })
                call.cancel()
                let result = await call.result
                #expect(throws: RPCError.cancelled()) { try result.get() }
                #expect(try await Self.eventually { probe.cancelled == 1 })
                // The id was kept until the server's answer came; the connection still works.
                #expect(try await client.call(TestMethods.sleep, SleepRequest(milliseconds: 1)) == Empty())
            }
        }
    }

    @Test("a not-processed status is retried even for a non-idempotent method")
    func retriesNotProcessed() async throws {
        let probe = SleepProbe()
        try await withRPCServer(testServerConfiguration(), router: probe.router()) { _, port in
            try await withTestClient(port: port) { client async throws in
                let answer = try await client.call(TestMethods.flaky, FailRequest(status: .unavailable, times: 2))
                #expect(answer.total == 3)
            }
        }
    }

    @Test("an outcome-unknown status is not retried unless the call is idempotent")
    func outcomeUnknownRetriedOnlyIfIdempotent() async throws {
        let probe = SleepProbe()
        try await withRPCServer(testServerConfiguration(), router: probe.router()) { _, port in
            try await withTestClient(port: port) { client async throws in
                let error = await #expect(throws: RPCError.self) {
                    try await client.call(TestMethods.flaky, FailRequest(status: .internal, times: 1))
                }
                #expect(error?.status == .internal)
                let answer = try await client.call(
                    TestMethods.flaky,
                    FailRequest(status: .internal, times: 2),
                    options: CallOptions(idempotent: true)
                )
                #expect(answer.total == 3)
            }
        }
    }

    @Test("a rejected status is never retried")
    func rejectedNotRetried() async throws {
        let probe = SleepProbe()
        try await withRPCServer(testServerConfiguration(), router: probe.router()) { _, port in
            try await withTestClient(port: port) { client async throws in
                let error = await #expect(throws: RPCError.self) {
                    try await client.call(
                        TestMethods.flaky,
                        FailRequest(status: .invalidArgument, times: 1),
                        options: CallOptions(idempotent: true)
                    )
                }
                #expect(error?.status == .invalidArgument)
            }
        }
    }

    @Test("an unreachable upstream fails unavailable within the deadline")
    func unreachableUpstream() async throws {
        // Bind and release a port so nothing listens on it.
        let port = try await withRPCServer(testServerConfiguration()) { _, port in port }
        try await withTestClient(port: port) { client async throws in
            let error = await #expect(throws: RPCError.self) {
                try await client.call(BuiltinMethods.health, Empty(), options: CallOptions(timeout: .milliseconds(500)))
            }
            #expect(error?.status == .unavailable)
        }
    }

    @Test("the client reconnects when the upstream comes back on the same port")
    func reconnects() async throws {
        let probe = SleepProbe()
        var configuration = testServerConfiguration()
        let port = try await withRPCServer(configuration, router: probe.router()) { _, port in port }
        configuration.port = port
        try await withTestClient(port: port, adjust: { $0.reconnectBackoffMax = .milliseconds(100) }) {
            client async throws in
            await #expect(throws: RPCError.self) {
                try await client.call(BuiltinMethods.health, Empty(), options: CallOptions(timeout: .milliseconds(200)))
            }
            let fixedPort = configuration
            try await withRPCServer(fixedPort, router: probe.router()) { _, _ in
                let health = try await client.call(
                    BuiltinMethods.health,
                    Empty(),
                    options: CallOptions(timeout: .seconds(5))
                )
                #expect(health.state == .serving)
            }
        }
    }
}
