import FoyerAPI
import FoyerGuestQuota
import FoyerRPC
import FoyerStorage
import FoyerTestSupport
import FoyerWire
import SQLKit
import Testing

@Suite("merge records and late refunds: nothing keeps a uid past its retention or its deletion")
struct MergeRecordRetentionTests {
    @Test(
        "a merge's record is kept for the retention, then pruned; a retry after that adds nothing",
        arguments: TestEngine.allCases
    )
    func prunedAfterRetention(engine: TestEngine) async throws {
        try await withGuestQuota(engine) { quota async throws in
            let guest = try await quota.open()
            let account = try await quota.open(plan: "member")
            _ = try await quota.consume(guest, "documents", 4)
            let request = QuotaMergeRequest(fromUID: guest, toUID: account, op: "merge-1")
            let first = try await quota.client.call(GuestQuotaMethods.merge, request)
            #expect(first.guestFound)

            quota.clock.advance(by: seconds(quota.configuration.mergeRecordRetention) - 1)
            #expect(try await prune(quota) == 0)
            #expect(try await quota.client.call(GuestQuotaMethods.merge, request) == first)

            quota.clock.advance(by: 2)
            #expect(try await prune(quota) == 1)
            #expect(try await rows(quota, "gq_merges") == 0)
            #expect(try await Leftovers.find(LeftoverNeedles(uid: guest), in: quota.database).isEmpty)

            // A retry now finds no guest account: it adds nothing (the first run deleted the guest's account).
            let retried = try await quota.client.call(GuestQuotaMethods.merge, request)
            #expect(retried == QuotaMergeResponse(guestFound: false, counters: []))
            #expect(try await quota.used(account) == 4)
        }
    }

    @Test("deleteAll of either uid deletes the records of its merges", arguments: TestEngine.allCases)
    func deletedWithEitherUID(engine: TestEngine) async throws {
        try await withGuestQuota(engine) { quota async throws in
            let guest = try await quota.open()
            let account = try await quota.open(plan: "member")
            let otherGuest = try await quota.open()
            let otherAccount = try await quota.open(plan: "member")
            for (from, to, op) in [(guest, account, "m1"), (otherGuest, otherAccount, "m2")] {
                _ = try await quota.client.call(
                    GuestQuotaMethods.merge,
                    QuotaMergeRequest(fromUID: from, toUID: to, op: op)
                )
            }
            _ = try await quota.client.call(GuestQuotaMethods.deleteAll, QuotaDeleteAllRequest(uid: account))
            _ = try await quota.client.call(
                GuestQuotaMethods.deleteAllBatch,
                Batch([QuotaDeleteAllRequest(uid: otherGuest)])
            )
            #expect(try await rows(quota, "gq_merges") == 0)
            for uid in [guest, account, otherGuest] {
                #expect(try await Leftovers.find(LeftoverNeedles(uid: uid), in: quota.database).isEmpty)
            }
        }
    }

    @Test(
        "a refund that comes after the account's deletion records nothing; for a live account it still blocks the key",
        arguments: TestEngine.allCases
    )
    func lateRefund(engine: TestEngine) async throws {
        try await withGuestQuota(engine) { quota async throws in
            let gone = try await quota.open()
            _ = try await quota.consume(gone, key: "k1")
            _ = try await quota.client.call(GuestQuotaMethods.deleteAll, QuotaDeleteAllRequest(uid: gone))
            for key in ["k1", "k2"] {
                let answer = try await quota.client.call(
                    GuestQuotaMethods.refund,
                    RefundRequest(uid: gone, idempotencyKey: key)
                )
                #expect(answer.outcome == .notFound)
            }
            #expect(try await rows(quota, "gq_consumptions") == 0)

            let live = try await quota.open()
            let answer = try await quota.client.call(
                GuestQuotaMethods.refund,
                RefundRequest(uid: live, idempotencyKey: "k3")
            )
            #expect(answer.outcome == .notFound)
            await expectStatus(GuestQuotaStatus.opConflict) { try await quota.consume(live, key: "k3") }
        }
    }

    @Test("prune removes consume keys, full buckets and merge records past their retention, a limit of each at a time")
    func pruneMethod() async throws {
        try await withGuestQuota(.sqlite, configure: { $0.mergeRecordRetention = .seconds(3 * 86_400) }) { quota in
            let account = try await quota.open(plan: "member")
            for index in 0..<3 {
                let guest = try await quota.open()
                _ = try await quota.consume(guest, key: "k\(index)")
                _ = try await quota.client.call(
                    GuestQuotaMethods.merge,
                    QuotaMergeRequest(fromUID: guest, toUID: account, op: "m\(index)")
                )
            }
            for _ in 0..<3 { _ = try await quota.consume(account) }
            quota.clock.advance(by: 86_400 + 1)
            // The account's three consume keys are past the 24 hours; the merges are not yet.
            #expect(try await quota.client.call(GuestQuotaMethods.prune, PruneRequest(limit: 2)).removed == 2)
            #expect(try await quota.client.call(GuestQuotaMethods.prune, PruneRequest(limit: 2)).removed == 1)
            #expect(try await rows(quota, "gq_merges") == 3)
            quota.clock.advance(by: 2 * 86_400)
            #expect(try await quota.client.call(GuestQuotaMethods.prune, PruneRequest(limit: 1000)).removed == 3)
            #expect(try await rows(quota, "gq_merges") == 0)
            await expectStatus(.invalidArgument) {
                try await quota.client.call(GuestQuotaMethods.prune, PruneRequest(limit: 0))
            }
        }
    }

    @Test("the merge record retention defaults to 7 days; less than a minute is refused")
    func retentionSetting() throws {
        var configuration = GuestQuotaConfiguration(
            database: try .parse(
                "sqlite:unused.sqlite",
                dataDirectory: "/nonexistent",
                defaultFileName: "unused.sqlite"
            )
        )
        #expect(configuration.mergeRecordRetention == .seconds(7 * 86_400))
        configuration.mergeRecordRetention = .seconds(59)
        #expect(throws: GuestQuotaConfigurationError.invalidSetting) { try configuration.validate() }
    }

    private func prune(_ quota: GuestQuotaHarness) async throws -> UInt64 {
        try await quota.client.call(GuestQuotaMethods.prune, PruneRequest(limit: 1000)).removed
    }

    private func rows(_ quota: GuestQuotaHarness, _ table: String) async throws -> Int {
        try await quota.database.withConnection { sql in
            try await sql.raw("SELECT COUNT(*) AS n FROM \(ident: table)").first()!.decode(column: "n", as: Int.self)
        }
    }

    private func seconds(_ duration: Duration) -> Double { Double(duration.components.seconds) }
}
