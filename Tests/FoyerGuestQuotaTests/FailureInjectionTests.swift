import FoyerAPI
import FoyerGuestQuota
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import Testing

@Suite("retries after an injected failure (the effect committed, the answer lost)")
struct FailureInjectionTests {
    @Test("a consume whose answer was lost is counted once when retried with its key", arguments: TestEngine.allCases)
    func consumeRetried(engine: TestEngine) async throws {
        let injection = GuestQuotaConfiguration.FailureInjection([.afterConsume, .afterRefund])
        try await withGuestQuota(engine, configure: { $0.failureInjection = injection }, maxAttempts: 1) {
            quota async throws in
            let uid = try await quota.open()
            await expectStatus(.internal) { try await quota.consume(uid, "documents", 4, key: "lost") }
            #expect(injection.pending == [.afterRefund])
            let retried = try await quota.consume(uid, "documents", 4, key: "lost")
            #expect(retried.replayed)
            #expect(retried.usage.used == 4)

            await expectStatus(.internal) {
                try await quota.client.call(GuestQuotaMethods.refund, RefundRequest(uid: uid, idempotencyKey: "lost"))
            }
            let refund = try await quota.client.call(
                GuestQuotaMethods.refund,
                RefundRequest(uid: uid, idempotencyKey: "lost")
            )
            #expect(refund.outcome == .alreadyRefunded)
            #expect(try await quota.used(uid) == 0)
        }
    }

    @Test(
        "the client's own retry of an idempotent consume hides the failure without double counting",
        arguments: TestEngine.allCases
    )
    func clientRetry(engine: TestEngine) async throws {
        let injection = GuestQuotaConfiguration.FailureInjection([.afterConsume])
        try await withGuestQuota(engine, configure: { $0.failureInjection = injection }) { quota async throws in
            let uid = try await quota.open()
            let answer = try await quota.consume(uid, "documents", 2, key: "auto")
            #expect(injection.pending.isEmpty)
            #expect(answer.replayed)
            #expect(try await quota.used(uid) == 2)
        }
    }

    @Test(
        "merge, open, changePlan and deleteAll retried after a lost answer apply once",
        arguments: TestEngine.allCases
    )
    func accountOperationsRetried(engine: TestEngine) async throws {
        let injection = GuestQuotaConfiguration.FailureInjection([
            .afterMerge, .afterOpenAccount, .afterChangePlan, .afterDeleteAll,
        ])
        try await withGuestQuota(engine, configure: { $0.failureInjection = injection }, maxAttempts: 1) {
            quota async throws in
            let guest = testUID()
            await expectStatus(.internal) { try await quota.open(guest) }
            let reopened = try await quota.client.call(
                GuestQuotaMethods.openAccount,
                OpenQuotaAccountRequest(uid: guest, plan: "guest")
            )
            #expect(reopened == OpenQuotaAccountResponse(created: false, plan: "guest"))
            #expect(try await quota.liveGuests() == 1)

            let account = try await quota.open(plan: "member")
            _ = try await quota.consume(guest, "documents", 6)
            let request = QuotaMergeRequest(fromUID: guest, toUID: account, op: "merge-lost")
            await expectStatus(.internal) { try await quota.client.call(GuestQuotaMethods.merge, request) }
            let report = try await quota.client.call(GuestQuotaMethods.merge, request)
            #expect(report == QuotaMergeResponse(guestFound: true, counters: [.init(counter: "documents", added: 6)]))
            #expect(try await quota.used(account) == 6)
            #expect(try await quota.liveGuests() == 0)

            let other = try await quota.open()
            await expectStatus(.internal) {
                try await quota.client.call(GuestQuotaMethods.changePlan, ChangePlanRequest(uid: other, plan: "member"))
            }
            _ = try await quota.client.call(GuestQuotaMethods.changePlan, ChangePlanRequest(uid: other, plan: "member"))
            #expect(try await quota.liveGuests() == 0)

            let third = try await quota.open()
            #expect(try await quota.liveGuests() == 1)
            await expectStatus(.internal) {
                try await quota.client.call(GuestQuotaMethods.deleteAll, QuotaDeleteAllRequest(uid: third))
            }
            let deleted = try await quota.client.call(GuestQuotaMethods.deleteAll, QuotaDeleteAllRequest(uid: third))
            #expect(!deleted.existed)
            #expect(try await quota.liveGuests() == 0)
            #expect(injection.pending.isEmpty)
        }
    }
}
