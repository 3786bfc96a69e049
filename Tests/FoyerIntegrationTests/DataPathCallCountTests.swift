import FoyerAPI
import FoyerClient
import FoyerStackProcesses
import Testing

/// The calls the gateway makes to the services for the operations of every session (its own
/// `foyer_rpc_client_calls_total`, summed over upstreams, methods and statuses): a guest sign-in is admission and
/// the guest, a document put one consume and one write, a get one read.
@Suite("Calls the gateway makes per operation (SQLite)")
struct DataPathCallCountTests {
    @Test("a guest sign-in makes at most 2 calls, a put at most 2 (new document or rewrite), a get 1")
    func callsPerOperation() async throws {
        // Session checks remembered for a minute, so that a slow machine does not check again between the steps.
        let options = RunningStackOptions(metrics: true, environment: [.gateway: ["FOYER_SESSION_CHECK_MS": "60000"]])
        try await withRunningStack(options) { stack async throws in
            func calls() throws -> Double {
                try MetricsScrape.exchange(port: stack.processes.metricsPort(of: .gateway))
                    .total("foyer_rpc_client_calls_total", containing: [])
            }
            func callsMade(_ operation: () async throws -> Void) async throws -> Double {
                let before = try calls()
                try await operation()
                return try calls() - before
            }
            try await stack.withClient { client async throws in
                let signIn = try await callsMade { _ = try await client.signInAsGuest() }
                #expect(signIn <= 2, "guest sign-in: \(signIn) calls")

                // A warm-up put: the session check and the activity report are made and remembered.
                _ = try await client.put("notes", "warm-up", "first")
                let created = try await callsMade { _ = try await client.put("notes", "n1", "a new note") }
                #expect(created <= 2, "put of a new document: \(created) calls")
                let grown = try await callsMade { _ = try await client.put("notes", "n1", "a longer note than before") }
                #expect(grown <= 2, "rewrite that grows: \(grown) calls")
                let shrunk = try await callsMade { _ = try await client.put("notes", "n1", "short") }
                #expect(shrunk <= 2, "rewrite that shrinks: \(shrunk) calls")
                var text: String?
                let read = try await callsMade { text = try await client.get("notes", "n1")?.text }
                #expect(read == 1, "get: \(read) calls")
                #expect(text == "short")

                // What the calls counted is exact: two documents, the bytes of their last versions.
                let usage = try await client.quota()
                #expect(usage.counters.first { $0.counter == "documents" }?.used == 2)
                #expect(usage.counters.first { $0.counter == "bytes" }?.used == UInt64("first".utf8.count + 5))
            }
        }
    }
}
