import FoyerAPI
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import Testing

@Suite("accounts: open, plans, usage, features, deleteAll")
struct AccountTests {
    @Test("open is idempotent and counts guests, not members", arguments: TestEngine.allCases)
    func openAccount(engine: TestEngine) async throws {
        try await withGuestQuota(engine) { quota async throws in
            let uid = testUID()
            let first = try await quota.client.call(
                GuestQuotaMethods.openAccount,
                OpenQuotaAccountRequest(uid: uid, plan: "guest")
            )
            let again = try await quota.client.call(
                GuestQuotaMethods.openAccount,
                OpenQuotaAccountRequest(uid: uid, plan: "guest")
            )
            #expect(first == OpenQuotaAccountResponse(created: true, plan: "guest"))
            #expect(again == OpenQuotaAccountResponse(created: false, plan: "guest"))
            // A late open with another plan changes nothing.
            let late = try await quota.client.call(
                GuestQuotaMethods.openAccount,
                OpenQuotaAccountRequest(uid: uid, plan: "member")
            )
            #expect(late == OpenQuotaAccountResponse(created: false, plan: "guest"))
            try await quota.open(plan: "member")
            #expect(try await quota.liveGuests() == 1)
            await expectStatus(GuestQuotaStatus.unknownPlan) { try await quota.open(plan: "platinum") }
            #expect(try await quota.liveGuests() == 1)
        }
    }

    @Test(
        "usage lists every counter of the plan and every feature; feature answers per plan",
        arguments: TestEngine.allCases
    )
    func usageAndFeatures(engine: TestEngine) async throws {
        try await withGuestQuota(engine) { quota async throws in
            let guest = try await quota.open()
            _ = try await quota.consume(guest, "bytes", 4096)
            let usage = try await quota.client.call(GuestQuotaMethods.usage, QuotaUsageRequest(uid: guest))
            #expect(
                usage
                    == QuotaUsageResponse(
                        plan: "guest",
                        counters: [
                            CounterUsage(counter: "bytes", limit: 1 << 20, used: 4096),
                            CounterUsage(counter: "documents", limit: 20, used: 0),
                        ],
                        features: [FeatureFlag(feature: "import", enabled: false)]
                    )
            )
            let guestImport = try await quota.client.call(
                GuestQuotaMethods.feature,
                FeatureCheckRequest(uid: guest, feature: "import")
            )
            #expect(guestImport == FeatureCheckResponse(plan: "guest", enabled: false))
            let member = try await quota.open(plan: "member")
            let memberImport = try await quota.client.call(
                GuestQuotaMethods.feature,
                FeatureCheckRequest(uid: member, feature: "import")
            )
            #expect(memberImport == FeatureCheckResponse(plan: "member", enabled: true))
            await expectStatus(GuestQuotaStatus.unknownFeature) {
                try await quota.client.call(
                    GuestQuotaMethods.feature,
                    FeatureCheckRequest(uid: member, feature: "teleport")
                )
            }
            // A uid without an account reads as a guest that has used nothing.
            let unopened = try await quota.client.call(GuestQuotaMethods.usage, QuotaUsageRequest(uid: testUID()))
            #expect(unopened.plan == "guest" && unopened.counters.allSatisfy { $0.used == 0 })
            #expect(unopened.counters.map(\.counter) == ["bytes", "documents"])
            let unopenedImport = try await quota.client.call(
                GuestQuotaMethods.feature,
                FeatureCheckRequest(uid: testUID(), feature: "import")
            )
            #expect(unopenedImport == FeatureCheckResponse(plan: "guest", enabled: false))
        }
    }

    @Test(
        "changePlan on upgrade lifts the limits, turns features on and frees a guest place",
        arguments: TestEngine.allCases
    )
    func upgrade(engine: TestEngine) async throws {
        try await withGuestQuota(engine) { quota async throws in
            let uid = try await quota.open()
            _ = try await quota.consume(uid, "documents", 20)
            await expectStatus(GuestQuotaStatus.quotaExceeded) { try await quota.consume(uid, "documents", 1) }
            #expect(try await quota.liveGuests() == 1)

            let changed = try await quota.client.call(
                GuestQuotaMethods.changePlan,
                ChangePlanRequest(uid: uid, plan: "member")
            )
            #expect(changed == ChangePlanResponse(previousPlan: "guest", plan: "member"))
            let again = try await quota.client.call(
                GuestQuotaMethods.changePlan,
                ChangePlanRequest(uid: uid, plan: "member")
            )
            #expect(again == ChangePlanResponse(previousPlan: "member", plan: "member"))
            #expect(try await quota.liveGuests() == 0)
            #expect(
                try await quota.consume(uid, "documents", 1).usage
                    == CounterUsage(counter: "documents", limit: 100_000, used: 21)
            )
            let feature = try await quota.client.call(
                GuestQuotaMethods.feature,
                FeatureCheckRequest(uid: uid, feature: "import")
            )
            #expect(feature.enabled)

            await expectStatus(GuestQuotaStatus.unknownPlan) {
                try await quota.client.call(GuestQuotaMethods.changePlan, ChangePlanRequest(uid: uid, plan: "gold"))
            }
            // A guest that never consumed has no account yet: its upgrade opens one on the new plan.
            let unopened = try await quota.client.call(
                GuestQuotaMethods.changePlan,
                ChangePlanRequest(uid: testUID(), plan: "member")
            )
            #expect(unopened == ChangePlanResponse(previousPlan: "guest", plan: "member"))
            #expect(try await quota.liveGuests() == 0)
        }
    }

    @Test(
        "deleteAll removes the account and its counters, once; the live-guest count follows",
        arguments: TestEngine.allCases
    )
    func deleteAll(engine: TestEngine) async throws {
        try await withGuestQuota(engine) { quota async throws in
            let uid = try await quota.open()
            _ = try await quota.consume(uid, "documents", 4, key: "k")
            #expect(try await quota.liveGuests() == 1)
            let deleted = try await quota.client.call(GuestQuotaMethods.deleteAll, QuotaDeleteAllRequest(uid: uid))
            #expect(deleted == QuotaDeleteAllResponse(existed: true, wasGuest: true))
            let again = try await quota.client.call(GuestQuotaMethods.deleteAll, QuotaDeleteAllRequest(uid: uid))
            #expect(again == QuotaDeleteAllResponse(existed: false, wasGuest: false))
            #expect(try await quota.liveGuests() == 0)
            #expect(try await quota.used(uid) == 0)
            // A reopened uid starts from zero: nothing of the old counters or keys survived.
            try await quota.open(uid)
            #expect(try await quota.used(uid) == 0)
            #expect(try await quota.consume(uid, "documents", 4, key: "k").replayed == false)
        }
    }

    @Test(
        "deleteAllBatch deletes every listed account in one call, answers each in order, leaves the others alone",
        arguments: TestEngine.allCases
    )
    func deleteAllBatch(engine: TestEngine) async throws {
        try await withGuestQuota(engine) { quota async throws in
            let guests = [try await quota.open(), try await quota.open(), try await quota.open()]
            let member = try await quota.open(plan: "member")
            let kept = try await quota.open()
            for uid in guests + [member, kept] { _ = try await quota.consume(uid, "documents", 2, key: "k") }
            #expect(try await quota.liveGuests() == 4)
            let uids = [guests[0], member, testUID(), guests[1], guests[2], guests[0]]
            let request = Batch(uids.map(QuotaDeleteAllRequest.init(uid:)))
            let deleted = try await quota.client.call(GuestQuotaMethods.deleteAllBatch, request)
            #expect(
                deleted.elements == [
                    QuotaDeleteAllResponse(existed: true, wasGuest: true),
                    QuotaDeleteAllResponse(existed: true, wasGuest: false),
                    QuotaDeleteAllResponse(existed: false, wasGuest: false),
                    QuotaDeleteAllResponse(existed: true, wasGuest: true),
                    QuotaDeleteAllResponse(existed: true, wasGuest: true),
                    QuotaDeleteAllResponse(existed: false, wasGuest: false),
                ]
            )
            #expect(try await quota.liveGuests() == 1)
            #expect(try await quota.used(kept) == 2)
            for uid in guests + [member] { #expect(try await quota.used(uid) == 0) }
            let again = try await quota.client.call(GuestQuotaMethods.deleteAllBatch, request)
            #expect(again.elements.allSatisfy { !$0.existed })
            #expect(try await quota.liveGuests() == 1)
            await expectStatus(.invalidArgument) {
                try await quota.client.call(GuestQuotaMethods.deleteAllBatch, Batch<QuotaDeleteAllRequest>([]))
            }
        }
    }

    @Test(
        "the live-guest count stays exact through opens, upgrades, merges and deletions racing each other",
        arguments: TestEngine.allCases
    )
    func censusUnderConcurrency(engine: TestEngine) async throws {
        try await withGuestQuota(engine) { quota async throws in
            let member = try await quota.open(plan: "member")
            let guests = (0..<24).map { _ in testUID() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for uid in guests { group.addTask { try await quota.open(uid) } }
                try await group.waitForAll()
            }
            #expect(try await quota.liveGuests() == 24)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, uid) in guests.enumerated() {
                    group.addTask {
                        switch index % 4 {
                        case 0:
                            _ = try await quota.client.call(
                                GuestQuotaMethods.changePlan,
                                ChangePlanRequest(uid: uid, plan: "member")
                            )
                        case 1:
                            _ = try await quota.client.call(
                                GuestQuotaMethods.deleteAll,
                                QuotaDeleteAllRequest(uid: uid)
                            )
                        case 2:
                            _ = try await quota.client.call(
                                GuestQuotaMethods.merge,
                                QuotaMergeRequest(fromUID: uid, toUID: member, op: "op-\(uid)")
                            )
                        default: _ = try await quota.open(uid)  // a retried open: no change
                        }
                        // Every step once more, as a retry would.
                        switch index % 4 {
                        case 0:
                            _ = try await quota.client.call(
                                GuestQuotaMethods.changePlan,
                                ChangePlanRequest(uid: uid, plan: "member")
                            )
                        case 1:
                            _ = try await quota.client.call(
                                GuestQuotaMethods.deleteAll,
                                QuotaDeleteAllRequest(uid: uid)
                            )
                        case 2:
                            _ = try await quota.client.call(
                                GuestQuotaMethods.merge,
                                QuotaMergeRequest(fromUID: uid, toUID: member, op: "op-\(uid)")
                            )
                        default: _ = try await quota.open(uid)
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await quota.liveGuests() == 6)
        }
    }

    @Test(
        "a guest's first consume opens its account on the guest plan, taking a place; a denial opens nothing",
        arguments: TestEngine.allCases
    )
    func openedByFirstConsume(engine: TestEngine) async throws {
        try await withGuestQuota(engine) { quota async throws in
            let guest = testUID()
            await expectStatus(GuestQuotaStatus.quotaExceeded) { try await quota.consume(guest, "documents", 21) }
            #expect(try await quota.liveGuests() == 0)
            let first = try await quota.consume(guest, "documents", 2, key: "k")
            #expect(first.opened && !first.replayed)
            #expect(first.usage == CounterUsage(counter: "documents", limit: 20, used: 2))
            #expect(try await quota.liveGuests() == 1)
            let again = try await quota.consume(guest, "documents", 2, key: "k")
            #expect(!again.opened && again.replayed)
            #expect(try await quota.consume(guest, "documents", 1).opened == false)
            let member = try await quota.open(plan: "member")
            #expect(try await quota.consume(member, "documents", 50).opened == false)
            #expect(try await quota.liveGuests() == 1)
            let deleted = try await quota.client.call(GuestQuotaMethods.deleteAll, QuotaDeleteAllRequest(uid: guest))
            #expect(deleted == QuotaDeleteAllResponse(existed: true, wasGuest: true))
            #expect(try await quota.liveGuests() == 0)
        }
    }
}
