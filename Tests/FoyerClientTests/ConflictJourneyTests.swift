import FoyerAPI
import FoyerClient
import Testing

@Suite("Link-or-merge through FoyerClient")
struct ConflictJourneyTests {
    /// A member with `documents` in `notes`, and the email and password it signs in with.
    private func makeAccount(_ stack: Stack, documents: [String: String]) async throws -> (uid: String, email: String) {
        try await stack.withClient { client in
            let guest = try await client.signInAsGuest()
            for (key, value) in documents { try await client.put("notes", key, value) }
            let email = uniqueEmail("account")
            try await client.link(email: email, password: strongPassword)
            return (guest.uid, email)
        }
    }

    @Test("merge: the guest's documents move into the account, the guest is gone")
    func mergeMovesDocuments() async throws {
        try await withStack { stack in
            let account = try await makeAccount(stack, documents: ["shared": "account's", "mine": "account only"])
            try await stack.withClient { client in
                let guest = try await client.signInAsGuest()
                try await client.put("notes", "shared", "guest's")
                try await client.put("notes", "theirs", "guest only")
                try await client.put("drafts", "d1", "draft")

                let result = try await client.link(
                    email: account.email,
                    password: strongPassword,
                    onConflict: .merge,
                    mergePolicy: .keepAccount
                )
                #expect(result.outcome == .merged)
                #expect(result.session?.uid == account.uid)
                #expect(result.session?.isAnonymous == false)
                #expect(await client.uid == account.uid)
                let report = try #require(result.mergeReport)
                #expect(report.moved == 2)
                #expect(report.conflicts == 1)
                #expect(report.keptAccount == 1)

                let notes = try await client.listAll("notes")
                #expect(Set(notes.map(\.key)) == ["shared", "mine", "theirs"])
                #expect(try await client.get("notes", "shared")?.text == "account's")
                #expect(try await client.get("drafts", "d1")?.text == "draft")

                // The guest is gone: its old session no longer works.
                try await stack.withClient(session: guest) { old async throws in
                    let error = await anyError { try await old.me() }
                    #expect(error?.isAuthenticationFailure == true || error == .userNotFound)
                    #expect(await anyError { try await old.refreshSession() }?.isAuthenticationFailure == true)
                }
            }
        }
    }

    @Test("merge with keep-both keeps the guest's colliding document under a derived key")
    func mergeKeepBoth() async throws {
        try await withStack { stack in
            let account = try await makeAccount(stack, documents: ["shared": "account's"])
            try await stack.withClient { client in
                try await client.signInAsGuest()
                try await client.put("notes", "shared", "guest's")
                let result = try await client.link(
                    email: account.email,
                    password: strongPassword,
                    onConflict: .merge,
                    mergePolicy: .keepBoth
                )
                let conflict = try #require(result.mergeReport?.listedConflicts.first)
                #expect(conflict.resolution == .keptBoth)
                let derived = try #require(conflict.derivedKey)
                #expect(try await client.get("notes", derived)?.text == "guest's")
                #expect(try await client.get("notes", "shared")?.text == "account's")
            }
        }
    }

    @Test("discard: the guest and its documents are gone, the account is untouched")
    func discardDeletesGuest() async throws {
        try await withStack { stack in
            let account = try await makeAccount(stack, documents: ["mine": "account only"])
            try await stack.withClient { client in
                let guest = try await client.signInAsGuest()
                try await client.put("notes", "theirs", "guest only")
                let result = try await client.link(email: account.email, password: strongPassword, onConflict: .discard)
                #expect(result.outcome == .discarded)
                #expect(result.session?.uid == account.uid)
                #expect(result.mergeReport == nil)
                #expect(try await client.listAll("notes").map(\.key) == ["mine"])
                try await stack.withClient(session: guest) { old async throws in
                    #expect(await anyError { try await old.refreshSession() }?.isAuthenticationFailure == true)
                    // A token still within its lifetime is refused at once: the guest's sessions were revoked.
                    #expect(await anyError { try await old.listAll("notes") }?.isAuthenticationFailure == true)
                }
            }
        }
    }

    @Test("fail: the typed conflict carries a ticket; resolve with merge works later")
    func failThenResolve() async throws {
        try await withStack { stack in
            let account = try await makeAccount(stack, documents: ["mine": "account only"])
            try await stack.withClient { client in
                let guest = try await client.signInAsGuest()
                try await client.put("notes", "theirs", "guest only")
                let answer = try await client.link(email: account.email, password: strongPassword, onConflict: .fail)
                #expect(answer.outcome == .conflict)
                #expect(answer.session == nil && answer.mergeReport == nil)
                let conflict = try #require(answer.conflict)
                #expect(conflict.otherUID == account.uid)
                #expect(!conflict.ticket.isEmpty)
                #expect(conflict.ticketExpiresAt > stack.clock.date)
                // Nothing changed: still the guest, with its document.
                #expect(await client.uid == guest.uid)
                #expect(try await client.get("notes", "theirs")?.text == "guest only")

                let result = try await client.resolveConflict(ticket: conflict.ticket, choice: .merge)
                #expect(result.outcome == .merged)
                #expect(result.session?.uid == account.uid)
                #expect(Set(try await client.listAll("notes").map(\.key)) == ["mine", "theirs"])
            }
        }
    }

    @Test("fail, then resolve with discard; a spent ticket is refused")
    func failThenDiscard() async throws {
        try await withStack { stack in
            let account = try await makeAccount(stack, documents: [:])
            try await stack.withClient { client in
                let guest = try await client.signInAsGuest()
                try await client.put("notes", "theirs", "guest only")
                let ticket = try #require(
                    try await client.link(email: account.email, password: strongPassword).conflict?.ticket
                )
                // A wrong ticket is refused, and the guest stays.
                await expectError(.ticketInvalid) {
                    try await client.resolveConflict(ticket: "not-a-ticket", choice: .merge)
                }
                #expect(await client.uid == guest.uid)

                let result = try await client.resolveConflict(ticket: ticket, choice: .discard)
                #expect(result.outcome == .discarded)
                #expect(try await client.listAll("notes").isEmpty)
                await expectError(.invalidInput) { try await client.resolveConflict(ticket: ticket, choice: .fail) }
            }
        }
    }

    @Test("A wrong password for an email in use is refused: nothing proven, so no conflict and no ticket")
    func wrongPasswordHasNoTicket() async throws {
        try await withStack { stack in
            let account = try await makeAccount(stack, documents: [:])
            try await stack.withClient { client in
                try await client.signInAsGuest()
                let error = await anyError {
                    try await client.link(email: account.email, password: "a different password", onConflict: .merge)
                }
                #expect(error == .emailAlreadyInUse || error == .invalidCredentials)
            }
        }
    }
}
