import FoyerAPI
import FoyerClient
import Testing

/// Account management through the real executables: a password reset by email (read from identity's outbox as an
/// operator does), a password change, unlinking the last credential, signing out everywhere and changing the email
/// address.
func accountManagementJourney(_ stack: RunningStack) async throws {
    let email = uniqueEmail("manage")
    let (uid, first) = try await stack.withClient { client async throws in
        try await client.signInAsGuest()
        try await client.put("notes", "kept", "through the reset")
        let linked = try #require(try await client.link(email: email, password: password).session)
        return (linked.uid, linked)
    }
    let second = try await stack.withClient { client async throws in
        try await client.signIn(email: email, password: password)
    }
    try await stack.withClient { device async throws in
        let verifier = try await device.startPasswordReset(email: email)
        // An address no account has gets the same answer.
        try await device.startPasswordReset(email: uniqueEmail("nobody"))
        let link = try #require(try await stack.outbox(to: email).first).body
        #expect(link.contains("foyer://password-reset#token="))
        let reset = try await device.completePasswordReset(
            token: link,
            verifier: verifier,
            newPassword: "a reset passphrase"
        )
        #expect(reset.uid == uid && !reset.isAnonymous)
        #expect(
            await foyerFailure {
                try await device.completePasswordReset(token: link, verifier: verifier, newPassword: "again!!!")
            }
                == .tokenAlreadyUsed
        )
        // Every session from before the reset is signed out: access and refresh tokens alike.
        try await stack.withClient(session: first) { old async throws in
            #expect(await foyerFailure { try await old.me() } == .tokenRevoked)
        }
        try await stack.withClient(session: second) { old async throws in
            #expect(await foyerFailure { try await old.refreshSession() } == .tokenRevoked)
        }
        #expect(try await device.get("notes", "kept")?.text == "through the reset")

        try await device.changePassword(currentPassword: "a reset passphrase", newPassword: "a changed passphrase")
        #expect(await foyerFailure { try await device.unlinkCredential(.email) } == .lastCredential)
        try await stack.withClient { other async throws in
            try await other.signIn(email: email, password: "a changed passphrase")
            try await device.signOutEverywhere()
            #expect(await foyerFailure { try await other.me() } == .tokenRevoked)
        }
    }
    // A new address, confirmed from its mailbox; the old one is told.
    let newEmail = uniqueEmail("moved")
    try await stack.withClient { client async throws in
        try await client.signIn(email: email, password: "a changed passphrase")
        let verifier = try await client.startEmailChange(to: newEmail, currentPassword: "a changed passphrase")
        let link = try #require(try await stack.outbox(to: newEmail).first).body
        try await client.completeEmailChange(token: link, verifier: verifier)
        #expect(try await client.me().user.email == newEmail)
        #expect(try await stack.outbox(to: email).first?.subject == "Your email address was changed")
    }
    #expect(try await stack.databases.state(of: uid) == "active")
}

@Suite("Account management through the real executables (SQLite)", .sharedStack())
struct AccountManagementJourneyTests {
    @Test("reset by email signs every device out; change; the last credential stays; sign out everywhere")
    func journey() async throws { try await accountManagementJourney(SharedStack.get()) }
}

@Suite(
    "Account management through the real executables (PostgreSQL)",
    .enabled(
        if: postgresConfigured,
        "FOYER_TEST_POSTGRES_URL is not set; start one with scripts/throwaway-postgres.sh"
    ),
    .sharedStack(RunningStackOptions(engine: .postgres))
)
struct PostgresAccountManagementJourneyTests {
    @Test("reset, change, unlink, sign out everywhere")
    func journey() async throws { try await accountManagementJourney(SharedStack.get()) }
}
