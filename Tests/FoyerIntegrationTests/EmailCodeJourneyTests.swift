import FoyerAPI
import FoyerClient
import Testing

extension RunningStack {
    /// The code in the newest email to `email` in identity's outbox.
    func emailCode(to email: String) async throws -> String {
        let message = try #require(try await outbox(to: email).first)
        return try #require(EmailCode.code(inMessage: message.body), "no code in: \(message.body)")
    }
}

/// Email codes through the real executables: a code asked for on one device signs in on another (no verifier) and
/// kills the link; a guest links its address with a code and keeps its uid; wrong codes are counted until the code
/// dies; a used code and an expired one are refused.
func emailCodeJourney(_ stack: RunningStack) async throws {
    // Asked for on one device, redeemed on another that never saw the verifier.
    let email = uniqueEmail("code")
    let verifier = try await stack.withClient { device async throws in
        try await device.sendEmailLink(to: email, purpose: .signIn)
    }
    let link = try #require(try await stack.outbox(to: email).first).body
    let code = try await stack.emailCode(to: email)
    let uid = try await stack.withClient { other async throws in
        let result = try await other.completeEmailCode(code, email: email, purpose: .signIn)
        let session = try #require(result.session)
        let me = try await other.me()
        #expect(!session.isAnonymous && me.user.email == email)
        #expect(
            await foyerFailure { try await other.completeEmailCode(code, email: email, purpose: .signIn) }
                == .tokenAlreadyUsed
        )
        return session.uid
    }
    try await stack.withClient { device async throws in
        let spent = await foyerFailure {
            try await device.completeEmailLink(token: link, verifier: verifier, purpose: .signIn)
        }
        #expect(spent == .tokenAlreadyUsed, "the code spent the link")
    }

    // A guest links an address with the code: same uid, same data, a member now.
    let linked = uniqueEmail("code-link")
    try await stack.withClient { client async throws in
        let guest = try await client.signInAsGuest()
        try await client.put("notes", "kept", "through the link")
        try await client.sendEmailLink(to: linked, purpose: .link)
        let result = try await client.completeEmailCode(
            try await stack.emailCode(to: linked),
            email: linked,
            purpose: .link
        )
        #expect(result.outcome == .linked && result.session?.uid == guest.uid)
        let me = try await client.me()
        #expect(me.user.email == linked && me.user.emailVerified && !me.user.isAnonymous)
        #expect(try await client.get("notes", "kept")?.text == "through the link")
    }

    // Five wrong codes are answered invalid-credentials, then even the right one is refused.
    let guessed = uniqueEmail("code-guessed")
    try await stack.withClient { client async throws in
        try await client.sendEmailLink(to: guessed, purpose: .signIn)
        let right = try await stack.emailCode(to: guessed)
        let wrong = String(right.dropLast()) + (right.hasSuffix("0") ? "1" : "0")
        for _ in 0..<5 {
            let refused = await foyerFailure {
                try await client.completeEmailCode(wrong, email: guessed, purpose: .signIn)
            }
            #expect(refused == .invalidCredentials)
        }
        #expect(
            await foyerFailure { try await client.completeEmailCode(right, email: guessed, purpose: .signIn) }
                == .tokenAlreadyUsed
        )
    }

    // Last, as it moves identity's clock: a code older than 10 minutes is refused.
    let late = uniqueEmail("code-late")
    try await stack.withClient { client async throws in
        try await client.sendEmailLink(to: late, purpose: .signIn)
        let code = try await stack.emailCode(to: late)
        try stack.setClockOffset(seconds: RunningStack.offset(stack.clockFile) + 601)
        #expect(
            await foyerFailure { try await client.completeEmailCode(code, email: late, purpose: .signIn) }
                == .tokenExpired
        )
    }
    #expect(try await stack.databases.state(of: uid) == "active")
}

@Suite("Email codes through the real executables (SQLite)", .sharedStack())
struct EmailCodeJourneyTests {
    @Test("a code signs in on another device and kills the link; links a guest; wrong, used and expired codes fail")
    func journey() async throws { try await emailCodeJourney(SharedStack.get()) }
}

@Suite(
    "Email codes through the real executables (PostgreSQL)",
    .enabled(
        if: postgresConfigured,
        "FOYER_TEST_POSTGRES_URL is not set; start one with scripts/throwaway-postgres.sh"
    ),
    .sharedStack(RunningStackOptions(engine: .postgres))
)
struct PostgresEmailCodeJourneyTests {
    @Test("a code signs in on another device and kills the link; links a guest; wrong, used and expired codes fail")
    func journey() async throws { try await emailCodeJourney(SharedStack.get()) }
}
