import Foundation
import FoyerAPI
import FoyerClient
import FoyerStackProcesses
import Testing

/// The stories' counters through the real executables, on `make run`'s plans (examples/plans.json).
@Suite("App-defined counters through the executables (SQLite)")
struct AppCounterJourneyTests {
    @Test("a guest makes 20 transactions, is refused the 21st, signs up, and counts on under the member's limit")
    func guestToMember() async throws {
        let plans = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("examples/plans.json").path
        let options = RunningStackOptions(environment: [.guestQuota: ["FOYER_PLANS_FILE": plans]])
        try await withRunningStack(options) { stack async throws in
            try await stack.withClient { client async throws in
                _ = try await client.signInAsGuest()
                for index in 1...20 { _ = try await client.consume("transactions", idempotencyKey: "tx-\(index)") }
                let denied = await #expect(throws: FoyerError.quotaExceeded) {
                    try await client.consume("transactions", idempotencyKey: "tx-21")
                }
                #expect(denied?.quotaExceeded?.limit == 20)
                // A retry of a consume that counted counts nothing more, even at the limit.
                #expect(try await client.consume("transactions", idempotencyKey: "tx-20").used == 20)

                _ = try await client.link(email: "counters@example.com", password: "correct horse battery staple")
                let transactions = try await client.quota().counters.first { $0.counter == "transactions" }
                #expect(transactions?.used == 20)
                #expect(transactions?.limit == 10_000)
                #expect(try await client.consume("transactions", idempotencyKey: "tx-21").used == 21)
            }
        }
    }
}
