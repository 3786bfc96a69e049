import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerIdentity
import FoyerRPC
import FoyerStorage
import FoyerTestSupport
import FoyerWire
import SQLKit
import Testing

@Suite("Account state machine: merges and deletions")
struct AccountStateTests {
    /// An account with a password and a guest about to link it.
    private func accountAndGuest(_ identity: IdentityHarness) async throws -> (SessionTokens, SessionTokens) {
        let account = try await identity.newGuest()
        _ = try await identity.call(
            IdentityMethods.linkPassword,
            LinkPasswordRequest(uid: account.uid, email: "acct@example.com", password: "account password")
        ).linked()
        return (account, try await identity.newGuest())
    }

    /// The guest's link of the account's password choosing merge: the gateway's first step of link-or-merge.
    private func merge(_ guest: SessionTokens, operationID: String) -> LinkAccountRequest {
        .password(guest, email: "acct@example.com", password: "account password", operationID: operationID)
    }

    /// Rows anywhere in identity's tables that mention `uid` (or `email`).
    private func traces(_ identity: IdentityHarness, uid: String, email: String? = nil) async throws -> [String: Int] {
        var found: [String: Int] = [:]
        let byUID: [(String, String)] = [
            ("identity_users", "uid"), ("identity_emails", "uid"), ("identity_provider_links", "uid"),
            ("identity_sessions", "uid"), ("identity_guest_keys", "uid"), ("identity_email_links", "uid"),
            ("identity_used_nonces", "uid"), ("identity_conflict_tickets", "holder_uid"),
            ("identity_conflict_tickets", "account_uid"),
        ]
        for (table, column) in byUID {
            let count = try await identity.count(table, where: column, is: uid)
            if count > 0 { found["\(table).\(column)"] = count }
        }
        if let email {
            for (table, column) in [("identity_email_links", "email"), ("identity_outbox", "recipient")] {
                let count = try await identity.count(table, where: column, is: email)
                if count > 0 { found["\(table).\(column)"] = count }
            }
        }
        return found
    }

    @Test(
        "Merge: link begins it with the proof in one commit, signs the guest out, answers a retry where it stands, and finishing deletes the guest",
        arguments: TestEngine.allCases
    )
    func merge(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let (account, guest) = try await accountAndGuest(identity)
            // A member is never merged into another account; nothing changes.
            let member = try await identity.newGuest()
            _ = try await identity.call(
                IdentityMethods.linkPassword,
                LinkPasswordRequest(uid: member.uid, email: "member@example.com", password: "member password")
            ).linked()
            #expect(
                await identity.status(IdentityMethods.link, merge(member, operationID: "m0"))
                    == IdentityStatus.guestRequired
            )
            let wrongPassword = LinkAccountRequest.password(
                guest,
                email: "acct@example.com",
                password: "not the password",
                operationID: "m0"
            )
            #expect(await identity.status(IdentityMethods.link, wrongPassword) == IdentityStatus.emailAlreadyInUse)

            let (session, state) = try await identity.call(IdentityMethods.link, merge(guest, operationID: "merge-1"))
                .begun()
            #expect(session.uid == account.uid)
            #expect(state.kind == .merging && state.mergeInto == account.uid && state.operationID == "merge-1")
            #expect(state.mergePolicy == .keepBoth)
            // A retry under the same operation continues it; under another, the revoked token is refused.
            #expect(
                try await identity.call(IdentityMethods.link, merge(guest, operationID: "merge-1"))
                    == .continuing(state)
            )
            #expect(
                await identity.status(IdentityMethods.link, merge(guest, operationID: "merge-2"))
                    == IdentityStatus.tokenRevoked
            )
            await identity.expectRevoked([guest])
            #expect(
                await identity.status(IdentityMethods.beginDelete, BeginDeleteRequest(uid: guest.uid, operationID: "d"))
                    == IdentityStatus.operationConflict
            )
            // The account cannot be deleted while the guest is being merged into it.
            #expect(
                await identity.status(
                    IdentityMethods.beginDelete,
                    BeginDeleteRequest(uid: account.uid, operationID: "delete-account")
                ) == IdentityStatus.operationConflict
            )

            let report = MergeReport(moved: 2, conflicts: 0, keptAccount: 0, keptGuest: 0, keptBoth: 0)
            #expect(
                await identity.status(
                    IdentityMethods.finishMerge,
                    FinishMergeRequest(uid: guest.uid, operationID: "other", report: report)
                ) == IdentityStatus.operationConflict
            )
            let answer = RememberOperationAnswerRequest(
                id: SHA256.hash(Array("merge-1".utf8)),
                check: SHA256.hash([1]),
                sealed: [1, 2, 3],
                lifetimeSeconds: 60
            )
            let finish = FinishMergeRequest(uid: guest.uid, operationID: "merge-1", report: report, answer: answer)
            try await identity.call(IdentityMethods.finishMerge, finish)
            try await identity.call(IdentityMethods.finishMerge, finish)
            #expect(try await traces(identity, uid: guest.uid) == [:])
            #expect(
                await identity.status(IdentityMethods.getUser, IdentityUserRequest(uid: guest.uid))
                    == IdentityStatus.userNotFound
            )
            // The answer kept with the last step is what a retry gets; without it, that the merge finished.
            #expect(
                try await identity.call(IdentityMethods.link, merge(guest, operationID: "merge-1"))
                    == .recalled(RememberedAnswer(check: answer.check, sealed: answer.sealed))
            )
            var unanswered = merge(guest, operationID: "merge-1")
            unanswered.operation.answerID = SHA256.hash([0])
            #expect(try await identity.call(IdentityMethods.link, unanswered) == .finished)
            _ = try await identity.call(
                IdentityMethods.verifyAccessToken,
                VerifyAccessTokenRequest(accessToken: account.accessToken)
            )
            // With the merge finished, the account may go.
            let deleting = try await identity.call(
                IdentityMethods.beginDelete,
                BeginDeleteRequest(uid: account.uid, operationID: "delete-account")
            )
            #expect(deleting.kind == .deleting)
        }
    }

    @Test(
        "Discard and delete-everything begin in one call each; a member's sign-out only ends its session",
        arguments: TestEngine.allCases
    )
    func discardAndDeleteAccount(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let (account, guest) = try await accountAndGuest(identity)
            let discard = LinkAccountRequest.password(
                guest,
                email: "acct@example.com",
                password: "account password",
                onConflict: .discard,
                operationID: "discard-1"
            )
            let (session, state) = try await identity.call(IdentityMethods.link, discard).begun()
            #expect(session.uid == account.uid)
            #expect(state.kind == .deleting && state.deletionReason == .merge && state.operationID == "discard-1")
            #expect(try await identity.call(IdentityMethods.link, discard) == .continuing(state))

            let signOut = DeleteAccountRequest(operation: .of(account, operationID: "sign-out"), guestOnly: true)
            #expect(try await identity.call(IdentityMethods.deleteAccount, signOut) == .signedOut)
            await identity.expectRevoked([account])

            let other = try await identity.newGuest()
            let delete = DeleteAccountRequest(operation: .of(other, operationID: "delete-1"), guestOnly: false)
            guard case .begun(let deleting) = try await identity.call(IdentityMethods.deleteAccount, delete) else {
                throw TestFailure("deleteAccount did not begin the deletion")
            }
            #expect(deleting.kind == .deleting && deleting.deletionReason == .userRequest)
            #expect(try await identity.call(IdentityMethods.deleteAccount, delete) == .continuing(deleting))
            try await identity.call(
                IdentityMethods.finishDelete,
                FinishDeleteRequest(uid: other.uid, operationID: "delete-1")
            )
            #expect(try await identity.call(IdentityMethods.deleteAccount, delete) == .finished)
        }
    }

    @Test(
        "Delete: beginning revokes every token at once; finishing removes every row of the user; both repeat harmlessly",
        arguments: TestEngine.allCases
    )
    func delete(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let key = randomKey()
            let guest = try await identity.call(IdentityMethods.createGuest, CreateGuestRequest(idempotencyKey: key))
            let email = "gone@example.com"
            let member = try await identity.call(
                IdentityMethods.linkPassword,
                LinkPasswordRequest(uid: guest.uid, email: email, password: "soon deleted")
            ).linked()
            _ = await status {
                try await identity.call(
                    IdentityMethods.signInWithPassword,
                    PasswordSignInRequest(email: email, password: "wrong one")
                )
            }
            _ = try await identity.requestLink(email, verifier: LinkVerifier())
            // The address's failed-password count, and its count from this (internal) caller.
            #expect(try await identity.count("identity_login_failures") == 2)
            // A second user's conflict ticket against this account.
            let other = try await identity.newGuest()
            _ = await status {
                try await identity.call(
                    IdentityMethods.linkPassword,
                    LinkPasswordRequest(uid: other.uid, email: email, password: "soon deleted")
                )
            }
            #expect(try await traces(identity, uid: guest.uid, email: email).count > 3)

            let state = try await identity.call(
                IdentityMethods.beginDelete,
                BeginDeleteRequest(uid: guest.uid, operationID: "del-1")
            )
            #expect(state.kind == .deleting && state.operationID == "del-1")
            for token in [guest.accessToken, member.accessToken] {
                #expect(
                    await status {
                        try await identity.call(
                            IdentityMethods.verifyAccessToken,
                            VerifyAccessTokenRequest(accessToken: token)
                        )
                    } == IdentityStatus.tokenRevoked
                )
            }
            #expect(
                await identity.status(
                    IdentityMethods.signInWithPassword,
                    PasswordSignInRequest(email: email, password: "soon deleted")
                ) == IdentityStatus.accountNotActive
            )
            #expect(
                try await identity.call(
                    IdentityMethods.beginDelete,
                    BeginDeleteRequest(uid: guest.uid, operationID: "del-1")
                ) == state
            )
            #expect(
                await identity.status(
                    IdentityMethods.beginDelete,
                    BeginDeleteRequest(uid: guest.uid, operationID: "del-2")
                ) == IdentityStatus.operationConflict
            )

            try await identity.call(
                IdentityMethods.finishDelete,
                FinishDeleteRequest(uid: guest.uid, operationID: "del-1")
            )
            try await identity.call(
                IdentityMethods.finishDelete,
                FinishDeleteRequest(uid: guest.uid, operationID: "del-1")
            )
            #expect(try await traces(identity, uid: guest.uid, email: email) == [:])
            #expect(try await identity.count("identity_login_failures") == 0)
            let otherSessions = try await identity.count("identity_sessions", where: "uid", is: other.uid)
            #expect(try await identity.count("identity_refresh_tokens") == otherSessions)
            #expect(
                await identity.status(
                    IdentityMethods.finishDelete,
                    FinishDeleteRequest(uid: guest.uid, operationID: "never")
                ) == IdentityStatus.userNotFound
            )
            // The idempotency key no longer leads anywhere: it makes a new guest.
            let again = try await identity.call(IdentityMethods.createGuest, CreateGuestRequest(idempotencyKey: key))
            #expect(again.uid != guest.uid)
        }
    }

    @Test(
        "The clean-up's delete checks, in the same transaction, that the user is still an idle guest",
        arguments: TestEngine.allCases
    )
    func idleGuard(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let guest = try await identity.newGuest()
            let cutoff = identity.clock.now().addingTimeInterval(-1)
            let milliseconds = UInt64(cutoff.timeIntervalSince1970 * 1000)
            #expect(
                await identity.status(
                    IdentityMethods.beginDelete,
                    BeginDeleteRequest(uid: guest.uid, operationID: "ttl-1", idleBeforeMilliseconds: milliseconds)
                ) == IdentityStatus.guestStillActive
            )
            identity.clock.advance(by: .seconds(10))
            let later = UInt64(identity.clock.now().timeIntervalSince1970 * 1000)
            let state = try await identity.call(
                IdentityMethods.beginDelete,
                BeginDeleteRequest(uid: guest.uid, operationID: "ttl-1", idleBeforeMilliseconds: later)
            )
            #expect(state.kind == .deleting)
        }
    }

    @Test(
        "Accounts stuck in merging or deleting longer than an age are listed, longest first",
        arguments: TestEngine.allCases
    )
    func stuck(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let (_, guest) = try await accountAndGuest(identity)
            _ = try await identity.call(IdentityMethods.link, merge(guest, operationID: "m")).begun()
            identity.clock.advance(by: .seconds(30))
            let doomed = try await identity.newGuest()
            _ = try await identity.call(
                IdentityMethods.beginDelete,
                BeginDeleteRequest(uid: doomed.uid, operationID: "d")
            )
            identity.clock.advance(by: .seconds(40))
            let old = try await identity.call(
                IdentityMethods.listStuckAccounts,
                ListStuckAccountsRequest(olderThanSeconds: 60)
            )
            #expect(old.accounts.map(\.uid) == [guest.uid])
            let all = try await identity.call(
                IdentityMethods.listStuckAccounts,
                ListStuckAccountsRequest(olderThanSeconds: 10)
            )
            #expect(all.accounts.map(\.uid) == [guest.uid, doomed.uid])
            #expect(all.accounts.map(\.kind) == [.merging, .deleting])
            #expect(all.accounts[1].operationID == "d")
        }
    }

    @Test(
        "Batch deletion: each user answered on its own in one call; the idle guests are marked and then removed, the others untouched; both repeat harmlessly",
        arguments: TestEngine.allCases
    )
    func batchDelete(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let idle = [try await identity.newGuest(), try await identity.newGuest(), try await identity.newGuest()]
            let member = try await identity.newGuest()
            _ = try await identity.call(
                IdentityMethods.linkPassword,
                LinkPasswordRequest(uid: member.uid, email: "kept@example.com", password: "member password")
            ).linked()
            identity.clock.advance(by: .seconds(3600))
            let active = try await identity.newGuest()
            let cutoff = UInt64(identity.clock.now().addingTimeInterval(-60).timeIntervalSince1970 * 1000)
            _ = try await identity.call(
                IdentityMethods.beginDelete,
                BeginDeleteRequest(uid: idle[2].uid, operationID: "someone-else")
            )

            let requests = [
                BeginDeleteRequest(uid: idle[0].uid, operationID: "ttl-0", idleBeforeMilliseconds: cutoff),
                BeginDeleteRequest(uid: member.uid, operationID: "ttl-m", idleBeforeMilliseconds: cutoff),
                BeginDeleteRequest(uid: idle[1].uid, operationID: "ttl-1", idleBeforeMilliseconds: cutoff),
                BeginDeleteRequest(uid: active.uid, operationID: "ttl-a", idleBeforeMilliseconds: cutoff),
                BeginDeleteRequest(uid: "no-such-user", operationID: "ttl-x", idleBeforeMilliseconds: cutoff),
                BeginDeleteRequest(uid: idle[2].uid, operationID: "ttl-2", idleBeforeMilliseconds: cutoff),
            ]
            let begun = try await identity.call(IdentityMethods.beginDeleteBatch, Batch(requests))
            let expected: [RPCStatus?] = [
                nil, IdentityStatus.guestStillActive, nil, IdentityStatus.guestStillActive, IdentityStatus.userNotFound,
                IdentityStatus.operationConflict,
            ]
            #expect(begun.elements.map(\.status) == expected)
            #expect(begun.elements[0].message.isEmpty && !begun.elements[1].message.isEmpty)
            #expect(try await identity.call(IdentityMethods.beginDeleteBatch, Batch(requests)) == begun)
            // The hour has expired the access tokens; the sessions tell.
            for guest in idle[0...1] {
                #expect(
                    await identity.status(
                        IdentityMethods.refreshSession,
                        RefreshSessionRequest(refreshToken: guest.refreshToken)
                    ) == IdentityStatus.tokenRevoked
                )
            }
            for user in [member, active] {
                _ = try await identity.call(
                    IdentityMethods.refreshSession,
                    RefreshSessionRequest(refreshToken: user.refreshToken)
                )
            }

            let finishes = [
                IdentityOperationRequest(uid: idle[0].uid, operationID: "ttl-0"),
                IdentityOperationRequest(uid: idle[1].uid, operationID: "ttl-1"),
                IdentityOperationRequest(uid: idle[2].uid, operationID: "ttl-2"),
                IdentityOperationRequest(uid: member.uid, operationID: "ttl-m"),
            ]
            let finished = try await identity.call(IdentityMethods.finishDeleteBatch, Batch(finishes))
            #expect(
                finished.elements.map(\.status)
                    == [nil, nil, IdentityStatus.operationConflict, IdentityStatus.operationConflict]
            )
            for guest in idle[0...1] { #expect(try await traces(identity, uid: guest.uid) == [:]) }
            #expect(try await traces(identity, uid: idle[2].uid)["identity_users.uid"] == 1)
            #expect(try await traces(identity, uid: member.uid, email: "kept@example.com")["identity_emails.uid"] == 1)
            // Finished operations answer done again; a user never begun is not found.
            let again = try await identity.call(IdentityMethods.finishDeleteBatch, Batch(Array(finishes[0...1])))
            #expect(again.elements == [.done, .done])
            let unknown = try await identity.call(
                IdentityMethods.finishDeleteBatch,
                Batch([IdentityOperationRequest(uid: "no-such-user", operationID: "ttl-x")])
            )
            #expect(unknown.elements.map(\.status) == [IdentityStatus.userNotFound])
            #expect(
                await identity.status(IdentityMethods.beginDeleteBatch, Batch<BeginDeleteRequest>([]))
                    == .invalidArgument
            )
        }
    }
}
