import FoyerAPI
import FoyerClient
import Testing

// The journeys of issue 5, written once and run on SQLite (JourneyTests) and on PostgreSQL
// (PostgresJourneyTests). Each asks the client what it sees and the databases what the services stored.

let password = "correct horse battery staple"

/// A unique address, so journeys sharing a stack never meet.
func uniqueEmail(_ name: String) -> String {
    "\(name)-\(OperationID.make().lowercased().filter { $0.isLetter || $0.isNumber })@example.com"
}

/// The error `body` failed with, or nil (recorded as an issue) if it succeeded or threw something else.
func foyerFailure<T>(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> T
) async -> FoyerError? {
    do {
        _ = try await body()
        Issue.record("expected a failure, got an answer", sourceLocation: sourceLocation)
    } catch let error as FoyerError {
        return error
    } catch {
        Issue.record("expected a FoyerError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// A member holding `notes` documents `keys` (each valued "account <key>"), and its email.
func makeAccount(_ stack: RunningStack, keys: [String]) async throws -> (uid: String, email: String) {
    try await stack.withClient { client async throws in
        let guest = try await client.signInAsGuest()
        for key in keys { try await client.put("notes", key, "account \(key)") }
        let email = uniqueEmail("account")
        try await client.link(email: email, password: password)
        return (guest.uid, email)
    }
}

/// Sign in as a guest, write until the quota refuses, link an email: same uid, the write now goes through.
func guestJourney(_ stack: RunningStack) async throws {
    try await stack.withClient { client async throws in
        let guest = try await client.signInAsGuest()
        #expect(guest.isAnonymous)
        for index in 1...20 { try await client.put("notes", "note-\(index)", "text \(index)") }
        let denied = await foyerFailure { try await client.put("notes", "note-21", "text 21") }
        #expect(denied == .quotaExceeded)
        let quota = try #require(denied?.quotaExceeded)
        #expect(quota.counter == "documents")
        #expect(quota.limit == 20)
        #expect(quota.used == 20)
        #expect(quota.remaining == 0)
        #expect(quota.requested == 1)
        #expect(try await stack.databases.documentKeys(of: guest.uid).count == 20)

        let email = uniqueEmail("guest")
        let linked = try await client.link(email: email, password: password)
        #expect(linked.outcome == .linked)
        #expect(linked.session?.uid == guest.uid)
        #expect(linked.session?.isAnonymous == false)

        try await client.put("notes", "note-21", "text 21")
        let notes = try await client.listAll("notes")
        #expect(Set(notes.map(\.key)) == Set((1...21).map { "note-\($0)" }))
        #expect(try await client.get("notes", "note-7")?.text == "text 7")
        let me = try await client.me()
        #expect(me.user.uid == guest.uid)
        #expect(me.user.email == email)
        #expect(me.usage.plan == "member")

        // What the services stored: one user, its 21 documents, counted once.
        #expect(try await stack.databases.state(of: guest.uid) == "active")
        #expect(try await stack.databases.documentKeys(of: guest.uid).count == 21)
        #expect(try await stack.databases.counter("documents", of: guest.uid) == 21)

        try await stack.withClient { other async throws in
            #expect(try await other.signIn(email: email, password: password).uid == guest.uid)
        }
    }
}

/// A second guest links an account's email and merges: its documents move in, it is gone everywhere.
func mergeJourney(_ stack: RunningStack) async throws {
    let account = try await makeAccount(stack, keys: ["shared", "mine"])
    try await stack.withClient { client async throws in
        let guest = try await client.signInAsGuest()
        for key in ["shared", "theirs"] { try await client.put("notes", key, "guest \(key)") }
        try await client.put("drafts", "d1", "draft")

        let result = try await client.link(email: account.email, password: password, onConflict: .merge)
        #expect(result.outcome == .merged)
        #expect(result.session?.uid == account.uid)
        #expect(result.mergeReport?.moved == 2)
        #expect(result.mergeReport?.keptAccount == 1)
        #expect(try await client.get("notes", "shared")?.text == "account shared")
        #expect(try await client.get("drafts", "d1")?.text == "draft")

        let records = try await stack.databases.mergeRecords(from: guest.uid)
        #expect(records.userData == 1 && records.guestQuota == 1, "\(records)")
        try await expectGone(guest.uid, stack)
        let keys = try await stack.databases.documentKeys(of: account.uid)
        #expect(keys == ["drafts/d1", "notes/mine", "notes/shared", "notes/theirs"])
        // guest-quota adds the guest's whole usage (its 3 documents) to the account's 2, once.
        #expect(try await stack.databases.counter("documents", of: account.uid) == 5)
    }
}

/// A second guest links an account's email and discards itself: gone with its data, the account untouched.
func discardJourney(_ stack: RunningStack) async throws {
    let account = try await makeAccount(stack, keys: ["mine"])
    try await stack.withClient { client async throws in
        let guest = try await client.signInAsGuest()
        try await client.put("notes", "theirs", "guest theirs")
        let result = try await client.link(email: account.email, password: password, onConflict: .discard)
        #expect(result.outcome == .discarded)
        #expect(result.session?.uid == account.uid)
        #expect(try await client.listAll("notes").map(\.key) == ["mine"])
        try await expectGone(guest.uid, stack)
        #expect(try await stack.databases.documentKeys(of: account.uid) == ["notes/mine"])
        #expect(try await stack.databases.counter("documents", of: account.uid) == 1)
    }
}

/// A second guest's link fails with a ticket; resolving it later with merge moves the documents.
func failThenResolveJourney(_ stack: RunningStack) async throws {
    let account = try await makeAccount(stack, keys: ["mine"])
    try await stack.withClient { client async throws in
        let guest = try await client.signInAsGuest()
        try await client.put("notes", "theirs", "guest theirs")
        let answer = try await client.link(email: account.email, password: password, onConflict: .fail)
        #expect(answer.outcome == .conflict)
        let conflict = try #require(answer.conflict)
        #expect(conflict.otherUID == account.uid)
        #expect(await client.uid == guest.uid, "a conflict keeps the guest's session")
        // Nothing changed yet.
        #expect(try await stack.databases.state(of: guest.uid) == "active")
        #expect(try await stack.databases.documentKeys(of: guest.uid) == ["notes/theirs"])

        let result = try await client.resolveConflict(ticket: conflict.ticket, choice: .merge)
        #expect(result.outcome == .merged)
        #expect(result.session?.uid == account.uid)
        try await expectGone(guest.uid, stack)
        #expect(try await stack.databases.documentKeys(of: account.uid) == ["notes/mine", "notes/theirs"])
        #expect(try await stack.databases.counter("documents", of: account.uid) == 2)
    }
}

/// Delete-everything leaves nothing of the user in any service's database.
func deleteEverythingJourney(_ stack: RunningStack) async throws {
    try await stack.withClient { client async throws in
        let guest = try await client.signInAsGuest()
        for index in 0..<5 { try await client.put("notes", "n\(index)", "v\(index)") }
        let email = uniqueEmail("deleted")
        try await client.link(email: email, password: password)
        #expect(try await !stack.databases.traces(of: guest.uid).isEmpty)

        #expect(try await client.deleteAccount() == 5)
        try await expectGone(guest.uid, emails: [email], stack)
        let error = await foyerFailure { try await client.signIn(email: email, password: password) }
        #expect(error == .invalidCredentials)
    }
}
