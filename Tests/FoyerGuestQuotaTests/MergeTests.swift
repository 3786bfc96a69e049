import FoyerAPI
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import Testing

@Suite("merge of a guest's counters into an account")
struct MergeTests {
    @Test("merge adds the guest's usage to the account's and deletes the guest", arguments: TestEngine.allCases)
    func mergeAddsUsage(engine: TestEngine) async throws {
        try await withGuestQuota(engine) { quota async throws in
            let guest = try await quota.open()
            let account = try await quota.open(plan: "member")
            _ = try await quota.consume(guest, "documents", 7)
            _ = try await quota.consume(guest, "bytes", 3000)
            _ = try await quota.consume(account, "documents", 100)
            let report = try await quota.client.call(
                GuestQuotaMethods.merge,
                QuotaMergeRequest(fromUID: guest, toUID: account, op: "merge-1")
            )
            #expect(
                report
                    == QuotaMergeResponse(
                        guestFound: true,
                        counters: [.init(counter: "bytes", added: 3000), .init(counter: "documents", added: 7)]
                    )
            )
            #expect(try await quota.used(account) == 107)
            #expect(try await quota.used(account, "bytes") == 3000)
            #expect(try await quota.liveGuests() == 0)
            #expect(try await quota.used(guest) == 0)
        }
    }

    @Test("a retry under the same op answers the same report and adds nothing", arguments: TestEngine.allCases)
    func idempotentUnderOp(engine: TestEngine) async throws {
        try await withGuestQuota(engine) { quota async throws in
            let guest = try await quota.open()
            let account = try await quota.open(plan: "member")
            _ = try await quota.consume(guest, "documents", 3)
            let request = QuotaMergeRequest(fromUID: guest, toUID: account, op: "merge-2")
            let first = try await quota.client.call(GuestQuotaMethods.merge, request)
            let second = try await quota.client.call(GuestQuotaMethods.merge, request)
            #expect(first == second)
            #expect(try await quota.used(account) == 3)
            #expect(try await quota.liveGuests() == 0)
        }
    }

    @Test(
        "an op id used for another pair is op-conflict; a merge into itself is merge-into-self; nothing changes",
        arguments: TestEngine.allCases
    )
    func refusals(engine: TestEngine) async throws {
        try await withGuestQuota(engine) { quota async throws in
            let guest = try await quota.open()
            let other = try await quota.open()
            let account = try await quota.open(plan: "member")
            _ = try await quota.consume(other, "documents", 2)
            _ = try await quota.client.call(
                GuestQuotaMethods.merge,
                QuotaMergeRequest(fromUID: guest, toUID: account, op: "op")
            )
            await expectStatus(GuestQuotaStatus.opConflict) {
                try await quota.client.call(
                    GuestQuotaMethods.merge,
                    QuotaMergeRequest(fromUID: other, toUID: account, op: "op")
                )
            }
            await expectStatus(GuestQuotaStatus.mergeIntoSelf) {
                try await quota.client.call(
                    GuestQuotaMethods.merge,
                    QuotaMergeRequest(fromUID: other, toUID: other, op: "op-self")
                )
            }
            await expectStatus(GuestQuotaStatus.accountNotFound) {
                try await quota.client.call(
                    GuestQuotaMethods.merge,
                    QuotaMergeRequest(fromUID: other, toUID: testUID(), op: "op-nowhere")
                )
            }
            await expectStatus(.invalidArgument) {
                try await quota.client.call(
                    GuestQuotaMethods.merge,
                    QuotaMergeRequest(fromUID: other, toUID: account, op: "")
                )
            }
            #expect(try await quota.used(other) == 2)
            #expect(try await quota.liveGuests() == 1)
            // The refused op ids stayed free.
            let merged = try await quota.client.call(
                GuestQuotaMethods.merge,
                QuotaMergeRequest(fromUID: other, toUID: account, op: "op-nowhere")
            )
            #expect(merged.counters == [.init(counter: "documents", added: 2)])
        }
    }

    @Test("merging a guest that has no quota account moves nothing", arguments: TestEngine.allCases)
    func unknownGuest(engine: TestEngine) async throws {
        try await withGuestQuota(engine) { quota async throws in
            let account = try await quota.open(plan: "member")
            let report = try await quota.client.call(
                GuestQuotaMethods.merge,
                QuotaMergeRequest(fromUID: testUID(), toUID: account, op: "op-empty")
            )
            #expect(report == QuotaMergeResponse(guestFound: false, counters: []))
        }
    }
}
