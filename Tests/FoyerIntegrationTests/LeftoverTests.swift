import FoyerAPI
import FoyerClient
import FoyerTestSupport
import Testing

// Point 7 of issue 11 through the real executables: once the retentions have passed, nothing of a deleted or merged
// user is left in any table of any service (the tables read from each database's schema, not listed here).

/// The leftover search reads every table of every service, the ones added by later migrations included.
func leftoverSearchCoversEveryTable(_ stack: RunningStack) async throws {
    let tables = try await stack.databases.searchedTables()
    let expected: [String: [String]] = [
        "identity": ["identity_users", "identity_emails", "identity_provider_links", "identity_finished_operations"],
        "guest-quota": ["gq_accounts", "gq_consumptions", "gq_merges"],
        "user-data": ["ud_documents", "ud_merge_ops", "ud_deleted_uids", "ud_put_ops"],
        "cleanup": ["cleanup_deletions", "cleanup_claims"],
    ]
    for (service, names) in expected {
        let searched = try #require(tables[service], "no tables read for \(service)")
        for name in names { #expect(searched[name]?.isEmpty == false, "\(service).\(name) is not searched") }
    }
    #expect(tables["user-data"]?["ud_documents"]?.contains(.init(name: "body", isBinary: true)) == true)
}

/// An account with an Apple identity, an email and documents deletes everything: right after, only user-data's
/// tombstone names it; after the retentions, nothing does (uid, Apple subject, the email Apple gave, identity's
/// digests of it).
func deletedAppleAccountLeavesNothing(_ stack: RunningStack) async throws {
    let subject = StandInApple.newSubject()
    let (uid, linked) = try await makeAppleAccount(stack, subject: subject, keys: ["a1", "a2"])
    let appleEmail = "relay-\(subject.prefix(14))@privaterelay.appleid.com"
    let needles = (emails: [appleEmail], subjects: [subject])
    try await stack.withClient(session: linked.session) { client async throws in
        try await client.put("notes", "a3", "once", idempotencyKey: "leftover-put")
        #expect(try await !stack.databases.traces(of: uid, emails: needles.emails).isEmpty)
        #expect(
            try await stack.databases.traces(of: testUID(), subjects: needles.subjects)["identity_provider_links"] == 1
        )
        #expect(try await client.deleteAccount() == 3)
    }
    // The check sees what is meant to stay for a while: the tombstone that refuses late writes.
    #expect(try await stack.databases.traces(of: uid).keys.sorted() == ["ud_deleted_uids"])
    try await expectGone(uid, emails: needles.emails, subjects: needles.subjects, stack)
}

/// An email account that failed a sign-in (identity counts failures under digests of the address) deletes
/// everything: nothing of the address is left, in clear or as a digest.
func deletedEmailAccountLeavesNothing(_ stack: RunningStack) async throws {
    let account = try await makeAccount(stack, keys: ["k"])
    try await stack.withClient { client async throws in
        let wrong = await foyerFailure { try await client.signIn(email: account.email, password: "not the password") }
        #expect(wrong == .invalidCredentials)
        // The check finds the address's failure counts by identity's digests of it.
        #expect(
            try await stack.databases.traces(of: testUID(), emails: [account.email])["identity_login_failures"] != nil
        )
        _ = try await client.signIn(email: account.email, password: password)
        #expect(try await client.deleteAccount() == 1)
    }
    try await expectGone(account.uid, emails: [account.email], stack)
}

/// A guest merged into an account: right after, the merge records of user-data and guest-quota name it; after the
/// retentions, nothing does, and the account keeps what it got.
func mergedGuestLeavesNothing(_ stack: RunningStack) async throws {
    let account = try await makeAccount(stack, keys: ["mine"])
    try await stack.withClient { client async throws in
        let guest = try await client.signInAsGuest()
        try await client.put("notes", "theirs", "guest theirs", idempotencyKey: "guest-put")
        let result = try await client.link(email: account.email, password: password, onConflict: .merge)
        #expect(result.outcome == .merged)
        #expect(try await stack.databases.traces(of: guest.uid).keys.sorted() == ["gq_merges", "ud_merge_ops"])
        try await expectGone(guest.uid, stack)
    }
    #expect(try await stack.databases.documentKeys(of: account.uid) == ["notes/mine", "notes/theirs"])
    #expect(try await stack.databases.counter("documents", of: account.uid) == 2)
}

@Suite(
    "Nothing of a deleted or merged user is left, in any table (SQLite)",
    .serialized,
    .sharedStack(.withStandInApple())
)
struct LeftoverTests {
    @Test("The search reads every table of every service from its schema")
    func everyTable() async throws { try await leftoverSearchCoversEveryTable(SharedStack.get()) }

    @Test("A deleted account with an Apple identity and documents leaves nothing once the retentions pass")
    func deletedAccount() async throws { try await deletedAppleAccountLeavesNothing(SharedStack.get()) }

    @Test("A deleted email account that failed a sign-in leaves nothing of its address")
    func deletedEmailAccount() async throws { try await deletedEmailAccountLeavesNothing(SharedStack.get()) }

    @Test("A merged guest leaves nothing once the retentions pass")
    func mergedGuest() async throws { try await mergedGuestLeavesNothing(SharedStack.get()) }
}

@Suite(
    "Nothing of a deleted or merged user is left, in any table (PostgreSQL)",
    .serialized,
    .enabled(
        if: postgresConfigured,
        "FOYER_TEST_POSTGRES_URL is not set; start one with scripts/throwaway-postgres.sh"
    ),
    .sharedStack(.withStandInApple(engine: .postgres))
)
struct PostgresLeftoverTests {
    @Test("every table") func everyTable() async throws { try await leftoverSearchCoversEveryTable(SharedStack.get()) }
    @Test("deleted account") func deletedAccount() async throws {
        try await deletedAppleAccountLeavesNothing(SharedStack.get())
    }
    @Test("deleted email account") func deletedEmailAccount() async throws {
        try await deletedEmailAccountLeavesNothing(SharedStack.get())
    }
    @Test("merged guest") func mergedGuest() async throws { try await mergedGuestLeavesNothing(SharedStack.get()) }
}
