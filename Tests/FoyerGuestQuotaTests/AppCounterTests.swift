import Foundation
import FoyerAPI
import FoyerGuestQuota
import FoyerRPC
import FoyerTestSupport
import Testing

/// The counters an app names in its plans (`transactions`, `uploads`) and the per-collection `documents:<name>`,
/// with the same `consume`, `release`, `merge` and `changePlan` as the gateway's own counters.
@Suite("app-defined and per-collection counters")
struct AppCounterTests {
    /// The stories' plans: 20 transactions and 3 uploads for a guest, more for a member; `documents:notes` only
    /// for members.
    static let plans = PlanCatalog(plans: [
        "guest": Plan(counters: ["documents": 20, "bytes": 1 << 20, "transactions": 20, "uploads": 3]),
        "member": Plan(
            counters: [
                "documents": 100_000, "bytes": 1 << 30, "transactions": 1000, "uploads": 100, "documents:notes": 2,
            ]
        ),
    ])

    private func withPlans<T: Sendable>(
        _ engine: TestEngine,
        _ body: (GuestQuotaHarness) async throws -> T
    ) async throws -> T {
        try await withGuestQuota(engine, configure: { $0.plans = Self.plans }, body)
    }

    @Test("many consumers racing for an app counter of limit N: exactly N succeed", arguments: TestEngine.allCases)
    func racingAtTheLimit(engine: TestEngine) async throws {
        try await withPlans(engine) { quota async throws in
            let uid = try await quota.open()
            let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        do {
                            _ = try await quota.consume(uid, "transactions", 1)
                            return true
                        } catch let error as RPCError where error.status == GuestQuotaStatus.quotaExceeded {
                            return false
                        }
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 }.count == 20)
            #expect(try await quota.used(uid, "transactions") == 20)
        }
    }

    @Test("an app counter's use moves with a merge and stays through a plan change", arguments: TestEngine.allCases)
    func mergeAndPlanChange(engine: TestEngine) async throws {
        try await withPlans(engine) { quota async throws in
            let guest = try await quota.open()
            _ = try await quota.consume(guest, "uploads", 3)
            await expectStatus(GuestQuotaStatus.quotaExceeded) { try await quota.consume(guest, "uploads", 1) }
            let account = try await quota.open(plan: "member")
            _ = try await quota.consume(account, "uploads", 5)
            _ = try await quota.client.call(
                GuestQuotaMethods.merge,
                QuotaMergeRequest(fromUID: guest, toUID: account, op: "merge-uploads")
            )
            #expect(try await quota.used(account, "uploads") == 8)

            // Guest to member keeps the uid: what the guest used counts under the member's limit.
            let linked = try await quota.open()
            _ = try await quota.consume(linked, "transactions", 20)
            await expectStatus(GuestQuotaStatus.quotaExceeded) { try await quota.consume(linked, "transactions", 1) }
            _ = try await quota.client.call(
                GuestQuotaMethods.changePlan,
                ChangePlanRequest(uid: linked, plan: "member")
            )
            let usage = try await quota.client.call(GuestQuotaMethods.usage, QuotaUsageRequest(uid: linked))
            let transactions = try #require(usage.counters.first { $0.counter == "transactions" })
            #expect(transactions == CounterUsage(counter: "transactions", limit: 1000, used: 20))
            #expect(try await quota.consume(linked, "transactions", 1).usage.used == 21)
        }
    }

    @Test(
        "a per-collection counter counts where the plan names it and is skipped where it does not",
        arguments: TestEngine.allCases
    )
    func scopedCounter(engine: TestEngine) async throws {
        try await withPlans(engine) { quota async throws in
            func put(_ uid: String) async throws -> ConsumeResponse {
                try await quota.client.call(
                    GuestQuotaMethods.consume,
                    ConsumeRequest(
                        uid: uid,
                        charges: [
                            QuotaCharge(counter: "documents", amount: 1, idempotencyKey: newKey()),
                            QuotaCharge(counter: "documents:notes", amount: 1, idempotencyKey: newKey()),
                        ]
                    )
                )
            }
            // The guest plan does not name documents:notes: only documents counts.
            let guest = try await quota.open()
            for _ in 0..<3 { #expect(try await put(guest).usage.map(\.counter) == ["documents"]) }
            #expect(try await quota.used(guest) == 3)
            let nothing = try await quota.client.call(
                GuestQuotaMethods.release,
                ReleaseRequest(uid: guest, counter: "documents:notes", amount: 1, idempotencyKey: "del-1")
            )
            #expect(nothing.outcome == .notFound)

            // The member plan limits notes to 2: the third is refused, and documents is not counted either.
            let member = try await quota.open(plan: "member")
            _ = try await put(member)
            #expect(try await put(member).usage.map(\.counter) == ["documents", "documents:notes"])
            let error = await expectStatus(GuestQuotaStatus.quotaExceeded) { try await put(member) }
            let details = try QuotaExceededDetails(decoding: try #require(error?.details))
            #expect(details.usage == CounterUsage(counter: "documents:notes", limit: 2, used: 2))
            #expect(try await quota.used(member) == 2)

            // An unscoped name the plan lacks is still refused, not skipped.
            await expectStatus(GuestQuotaStatus.unknownCounter) { try await quota.consume(member, "photos", 1) }
        }
    }

    @Test("plans may name a counter per collection; malformed scoped names are refused")
    func scopedNames() throws {
        let file = #"{"guest": {"counters": {"documents:notes": 5, "documents:Notes.v2": 1}}}"#
        let catalog = try PlanCatalog(json: Data(file.utf8))
        #expect(catalog.plans["guest"]?.counters["documents:notes"] == 5)
        for bad in [
            "documents:", ":notes", "documents:no tes", "Documents:notes", "a:b:c",
            "documents:" + String(repeating: "n", count: 55),
        ] {
            #expect(throws: GuestQuotaConfigurationError.self, "\(bad)") {
                try PlanCatalog(json: Data(#"{"guest": {"counters": {"\#(bad)": 1}}}"#.utf8))
            }
        }
    }
}
