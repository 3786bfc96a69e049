import FoyerAPI
import FoyerClient
import FoyerGateway
import Testing

@Suite("A revoked session stops working at the gateway within the session-check interval")
struct RevocationTests {
    @Test("Right after delete-everything returns, the deleted account's access token is refused on put and get")
    func deletedAccountTokenRefusedAtOnce() async throws {
        try await withStack { stack in
            try await stack.withClient { client in
                try await client.signInAsGuest()
                try await client.put("notes", "n", "v")
                try await client.link(email: uniqueEmail(), password: strongPassword)
                try await client.put("notes", "m", "w")
                let session = try #require(await client.session)
                _ = try await client.deleteAccount()
                // Same instant on the stack's clock: nothing may rely on an interval passing.
                try await stack.withClient(session: session) { old async throws in
                    #expect(
                        await anyError { try await old.put("notes", "again", "x") }?.isAuthenticationFailure == true
                    )
                    #expect(await anyError { try await old.get("notes", "n") }?.isAuthenticationFailure == true)
                    #expect(await anyError { try await old.listAll("notes") }?.isAuthenticationFailure == true)
                }
            }
        }
    }

    @Test("After a guest's sign-out (which deletes it) its token is refused at once")
    func guestSignOutTokenRefusedAtOnce() async throws {
        try await withStack { stack in
            try await stack.withClient { client in
                let guest = try await client.signInAsGuest()
                try await client.put("notes", "n", "v")
                #expect(try await client.signOut())
                try await stack.withClient(session: guest) { old async throws in
                    #expect(await anyError { try await old.get("notes", "n") }?.isAuthenticationFailure == true)
                }
            }
        }
    }

    @Test("A session revoked at identity (refresh-token reuse) is refused on data calls once the interval has passed")
    func reuseDetectionReachesDataCalls() async throws {
        try await withStack { stack in
            let first = try await stack.withClient { client in try await client.signInAsGuest() }
            try await stack.withClient(session: first) { client in
                _ = try await client.refreshSession()
                try await client.put("notes", "n", "v")  // the gateway now holds identity's word for this session

                // The rotated refresh token presented again outside the grace: identity revokes the session.
                stack.clock.advance(by: 31)
                try await stack.withClient(session: first) { thief async throws in
                    _ = await expectError(.refreshTokenReused) { try await thief.refreshSession() }
                }
                stack.clock.advance(by: 1.001)
                let refusal = await anyError { try await client.put("notes", "m", "w") }
                #expect(refusal?.isAuthenticationFailure == true)
            }
        }
    }

    @Test("A member's sign-out refuses that session's access token at once")
    func memberSignOutTokenRefusedAtOnce() async throws {
        try await withStack { stack in
            try await stack.withClient { client in
                try await client.signInAsGuest()
                try await client.link(email: uniqueEmail(), password: strongPassword)
                try await client.put("notes", "n", "v")
                let session = try #require(await client.session)
                #expect(try await !client.signOut())
                try await stack.withClient(session: session) { old async throws in
                    #expect(await anyError { try await old.get("notes", "n") }?.isAuthenticationFailure == true)
                }
            }
        }
    }
}

@Suite("Per-source limits on refresh, sign-in and email-link redemption, at the boundary")
struct SourceLimitTests {
    private static func limits(_ perMinute: Int) -> StackOptions {
        var options = StackOptions()
        options.sourceLimits.refresh = RateLimit(perMinute: perMinute, burst: perMinute)
        options.sourceLimits.signIn = RateLimit(perMinute: perMinute, burst: perMinute)
        options.sourceLimits.emailLinkCompletion = RateLimit(perMinute: perMinute, burst: perMinute)
        return options
    }

    @Test("Sign-in: the burst gets identity's answer, the next call rate-limited with a wait, then a token is back")
    func signIn() async throws {
        try await withStack(options: Self.limits(3)) { stack in
            try await stack.withClient { client in
                for _ in 0..<3 {
                    await expectError(.invalidCredentials) {
                        try await client.signIn(email: uniqueEmail(), password: strongPassword)
                    }
                }
                let refusal = await expectError(.rateLimited) {
                    try await client.signIn(email: uniqueEmail(), password: strongPassword)
                }
                #expect(refusal?.retryAfter == .seconds(20))
                stack.clock.advance(by: 20)
                await expectError(.invalidCredentials) {
                    try await client.signIn(email: uniqueEmail(), password: strongPassword)
                }
            }
        }
    }

    @Test("Refresh: the burst rotates, the next refresh is rate-limited")
    func refresh() async throws {
        try await withStack(options: Self.limits(2)) { stack in
            try await stack.withClient { client in
                try await client.signInAsGuest()
                _ = try await client.refreshSession()
                _ = try await client.refreshSession()
                await expectError(.rateLimited) { try await client.refreshSession() }
            }
        }
    }

    @Test("Email-link redemption: guesses at tokens are limited per source")
    func emailLinkRedemption() async throws {
        try await withStack(options: Self.limits(2)) { stack in
            try await stack.withClient { client in
                let guess = String(repeating: "A", count: 43)
                for _ in 0..<2 {
                    let error = await anyError {
                        try await client.completeEmailLink(
                            token: guess,
                            verifier: EmailLinkVerifier(),
                            purpose: .signIn
                        )
                    }
                    #expect(error != .rateLimited)
                }
                await expectError(.rateLimited) {
                    try await client.completeEmailLink(token: guess, verifier: EmailLinkVerifier(), purpose: .signIn)
                }
            }
        }
    }
}
