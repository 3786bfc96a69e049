import FoyerAPI
import FoyerCleanup
import FoyerRPC
import FoyerStorage
import FoyerTestSupport
import FoyerWire
import NIOCore
import SQLKit
import Testing

@Suite("Recovery of interrupted deletions and merges")
struct RecoveryTests {
    @Test(
        "A deletion interrupted after begin-delete is finished once past the grace, with the reason it began with",
        arguments: TestEngine.allCases
    )
    func finishesInterruptedDeletion(engine: TestEngine) async throws {
        try await withCluster(engine) { cluster in
            // Given: the gateway's delete-everything stopped right after identity's point of no return, and a
            // TTL deletion of cleanup's own stopped at the same place.
            let user = try await cluster.newGuest(documents: 2)
            let expired = try await cluster.newGuest(documents: 1)
            _ = try await cluster.identity.call(
                IdentityMethods.beginDelete,
                BeginDeleteRequest(uid: user.uid, operationID: "gateway-delete-1")
            )
            _ = try await cluster.identity.call(
                IdentityMethods.beginDelete,
                BeginDeleteRequest(uid: expired.uid, operationID: "interrupted", reason: .ttl)
            )

            try await cluster.withCleanup { cleanup in
                // Within the grace nothing is touched: the gateway may still be at it.
                let early = try await cleanup.sweep()
                #expect(early.stuckFinished == 0)
                #expect(try await cluster.documentCount(user.uid) == 2)

                // When
                cluster.advance(seconds: 61)
                let report = try await cleanup.sweep()

                // Then
                #expect(report.stuckFinished == 2)
                #expect(report.errors == 0, "\(report.lastError)")
                for guest in [user, expired] {
                    #expect(try await cluster.state(of: guest.uid) == nil)
                    #expect(try await cluster.traces(of: guest.uid).isEmpty)
                    #expect(await !cluster.canRefresh(guest))
                }
                let reasons = try await cleanup.deletions().map(\.reason).sorted { $0.rawValue < $1.rawValue }
                #expect(reasons == [.userRequest, .ttl])
                #expect(try await cleanup.sweep().stuckFinished == 0)
            }
        }
    }

    @Test(
        "A merge interrupted after user-data is finished under the user's policy, nothing merged twice; one user-data never started is finished with keep-both",
        arguments: TestEngine.allCases
    )
    func finishesInterruptedMerges(engine: TestEngine) async throws {
        try await withCluster(engine) { cluster in
            // Given: account A and guest G share the key `shared`; the gateway began the merge with keep-account,
            // user-data moved the documents, and then the gateway stopped (guest-quota and identity not done).
            let accountA = try await cluster.newMember(email: "a@example.com", documents: [("shared", "A's own")])
            let guestG = try await cluster.newGuest()
            try await cluster.write(guestG.uid, documents: [("shared", "G's"), ("only-g", "G's only")])
            try await cluster.beginMerge(
                guestG,
                intoAccountWith: "a@example.com",
                operationID: "merge-g",
                policy: .keepAccount
            )
            let firstReport = try await cluster.userData.call(
                UserDataMethods.merge,
                MergeDocumentsRequest(fromUID: guestG.uid, toUID: accountA, op: "merge-g", policy: .keepAccount)
            )
            #expect(firstReport.moved == 1 && firstReport.keptAccount == 1)

            // And: account B and guest H, the merge begun in identity only.
            let accountB = try await cluster.newMember(email: "b@example.com", documents: [("shared", "B's own")])
            let guestH = try await cluster.newGuest()
            try await cluster.write(guestH.uid, documents: [("shared", "H's")])
            try await cluster.beginMerge(guestH, intoAccountWith: "b@example.com", operationID: "merge-h")
            cluster.advance(seconds: 61)

            try await cluster.withCleanup { cleanup in
                // When
                let report = try await cleanup.sweep()

                // Then
                #expect(report.stuckFinished == 2)
                #expect(report.errors == 0, "\(report.lastError)")
                #expect(try await cluster.noteKeys(accountA) == ["only-g", "shared"])
                let shared = try await cluster.userData.call(
                    UserDataMethods.get,
                    GetDocumentRequest(uid: accountA, collection: "notes", key: "shared")
                )
                #expect(shared.document.map { String(buffer: $0.value) } == "A's own")
                #expect(try await cluster.documentsUsed(accountA) == 3, "A's 1 and G's 2, counted once")

                let keysB = try await cluster.noteKeys(accountB)
                #expect(
                    keysB.count == 2 && keysB.contains("shared") && keysB.contains { $0.hasPrefix("shared~guest-") }
                )
                #expect(try await cluster.documentsUsed(accountB) == 2)

                for guest in [guestG, guestH] {
                    #expect(try await cluster.state(of: guest.uid) == nil)
                    #expect(try await cluster.traces(of: guest.uid).isEmpty)
                }
                #expect(try await cleanup.deletions().map(\.reason) == [.merge, .merge])

                // Repeating any step changes nothing.
                let replay = try await cluster.userData.call(
                    UserDataMethods.merge,
                    MergeDocumentsRequest(fromUID: guestG.uid, toUID: accountA, op: "merge-g", policy: .keepAccount)
                )
                #expect(replay.moved == firstReport.moved && replay.keptAccount == firstReport.keptAccount)
                _ = try await cluster.guestQuota.call(
                    GuestQuotaMethods.merge,
                    QuotaMergeRequest(fromUID: guestG.uid, toUID: accountA, op: "merge-g")
                )
                #expect(try await cluster.documentsUsed(accountA) == 3)
                let again = try await cleanup.sweep()
                #expect(again.stuckFinished == 0 && again.errors == 0)
                #expect(try await cleanup.deletions().count == 2)
            }
        }
    }

    @Test(
        "A guest merging into an account that is gone is deleted with its documents, recorded as a merge, rather than left stuck or orphaning them"
    )
    func mergeIntoVanishedAccount() async throws {
        try await withCluster(.sqlite) { cluster in
            let account = try await cluster.newMember(email: "gone@example.com")
            let guest = try await cluster.newGuest(documents: 1)
            try await cluster.beginMerge(guest, intoAccountWith: "gone@example.com", operationID: "merge-x")
            // While the account exists, the merging guest cannot be deleted from under its merge, nor the account
            // from under the guest.
            for uid in [guest.uid, account] {
                let refused = await #expect(throws: RPCError.self) {
                    try await cluster.identity.call(
                        IdentityMethods.beginDelete,
                        BeginDeleteRequest(uid: uid, operationID: "too-early")
                    )
                }
                #expect(refused?.status == IdentityStatus.operationConflict)
            }
            // So the account can only vanish behind identity's back (a restore, an operator): its rows go.
            try await cluster.identityDatabase.transaction { sql in
                try await sql.raw("DELETE FROM identity_emails WHERE uid = \(bind: account)").run()
                try await sql.raw(
                    "DELETE FROM identity_refresh_tokens WHERE session_id IN (SELECT id FROM identity_sessions WHERE uid = \(bind: account))"
                ).run()
                try await sql.raw("DELETE FROM identity_sessions WHERE uid = \(bind: account)").run()
                try await sql.raw("DELETE FROM identity_conflict_tickets WHERE account_uid = \(bind: account)").run()
                try await sql.raw("DELETE FROM identity_users WHERE uid = \(bind: account)").run()
            }
            cluster.advance(seconds: 61)

            try await cluster.withCleanup { cleanup in
                let report = try await cleanup.sweep()
                #expect(report.stuckFinished == 1)
                #expect(report.errors == 0, "\(report.lastError)")
                #expect(try await cluster.state(of: guest.uid) == nil)
                #expect(try await cluster.traces(of: guest.uid).isEmpty)
                #expect(try await cluster.documentCount(account) == 0)
                let records = try await cleanup.deletions()
                #expect(records.count == 1)
                #expect(records.first?.reason == .merge)
                let again = try await cleanup.sweep()
                #expect(again.stuckFinished == 0 && again.errors == 0)
            }
        }
    }
}
