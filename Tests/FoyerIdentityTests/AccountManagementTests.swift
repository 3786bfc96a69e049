import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerIdentity
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import Testing

extension IdentityHarness {
    /// A guest made a member with `email` and `password`; its session.
    func member(_ email: String, _ password: String) async throws -> SessionTokens {
        let guest = try await newGuest()
        return try await call(
            IdentityMethods.linkPassword,
            LinkPasswordRequest(uid: guest.uid, email: email, password: password)
        ).linked()
    }

    /// The verifier the harness asks for resets and email changes with, unless a test gives its own.
    static let linkVerifier = LinkVerifier()

    /// Asks for a password reset of `email`; the newest message to it in the outbox.
    func requestReset(
        _ email: String,
        challenge: [UInt8]? = IdentityHarness.linkVerifier.challenge,
        source: String = ""
    ) async throws -> OutboxMessage {
        let before = Set(try await call(IdentityMethods.listOutbox, ListOutboxRequest(limit: 1000)).messages.map(\.id))
        try await call(
            IdentityMethods.startPasswordReset,
            StartPasswordResetRequest(email: email, verifierChallenge: challenge, source: source)
        )
        let outbox = try await call(IdentityMethods.listOutbox, ListOutboxRequest(limit: 1000))
        return try #require(outbox.messages.first { !before.contains($0.id) })
    }

    func completeReset(
        _ token: String,
        verifier: [UInt8]? = IdentityHarness.linkVerifier.verifier,
        _ password: String
    ) async throws -> SessionTokens {
        try await call(
            IdentityMethods.completePasswordReset,
            CompletePasswordResetRequest(token: token, verifier: verifier, newPassword: password)
        )
    }

    func changePassword(
        _ session: SessionTokens,
        current: String?,
        new: String,
        source: String = ""
    ) async throws -> SessionTokens {
        try await call(
            IdentityMethods.changePassword,
            ChangePasswordRequest(
                uid: session.uid,
                sessionID: session.sessionID,
                currentPassword: current,
                newPassword: new,
                source: source
            )
        )
    }

    func unlink(_ session: SessionTokens, _ credential: CredentialKind) async throws {
        try await call(
            IdentityMethods.unlinkCredential,
            UnlinkCredentialRequest(uid: session.uid, sessionID: session.sessionID, credential: credential)
        )
    }
}

/// The token in a password-reset message built from the default template (`...#token=<43 characters>`).
func resetToken(_ message: OutboxMessage) throws -> String {
    #expect(message.body.contains("foyer://password-reset#token="))
    return try #require(tokenInMessage(message.body))
}

@Suite("Account management: password reset and change, removing a credential, changing the email")
struct AccountManagementTests {
    @Test(
        "A reset link sets the password once, signs every session out, refuses older tokens, and is no sign-in link",
        arguments: TestEngine.allCases
    )
    func reset(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let first = try await identity.member("reset@example.com", "the old passphrase")
            let second = try await signIn(identity, "reset@example.com", "the old passphrase")
            let token = try resetToken(try await identity.requestReset("Reset@Example.com"))
            // The policy is checked before anything is spent.
            #expect(await status { try await identity.completeReset(token, "password") } == IdentityStatus.weakPassword)
            identity.clock.advance(by: .seconds(1))
            let session = try await identity.completeReset(token, "a brand new passphrase")
            #expect(session.uid == first.uid && !session.isAnonymous)
            await identity.expectRevoked([first, second])
            #expect(
                await status { try await signIn(identity, "reset@example.com", "the old passphrase") }
                    == IdentityStatus.invalidCredentials
            )
            #expect(try await signIn(identity, "reset@example.com", "a brand new passphrase").uid == first.uid)
            let user = try await identity.call(IdentityMethods.getUser, IdentityUserRequest(uid: first.uid))
            #expect(user.emailVerified && user.hasPassword)
            #expect(
                await status { try await identity.completeReset(token, "yet another passphrase") }
                    == IdentityStatus.tokenAlreadyUsed
            )
            // A reset token signs in nowhere else, and a sign-in link resets nothing.
            let other = try resetToken(try await identity.requestReset("reset@example.com"))
            #expect(
                await status { try await identity.completeLink(other, verifier: LinkVerifier().verifier) }
                    == IdentityStatus.invalidToken
            )
            let client = LinkVerifier()
            let signInLink = try await identity.requestLink("reset@example.com", verifier: client)
            #expect(
                await status {
                    try await identity.completeReset(signInLink, verifier: client.verifier, "x passphrase y")
                }
                    == IdentityStatus.invalidToken
            )
            identity.clock.advance(by: .seconds(601))
            #expect(
                await status { try await identity.completeReset(other, "late passphrase here") }
                    == IdentityStatus.tokenExpired
            )
        }
    }

    @Test(
        "An unknown address gets the same answer and a notice without a link; resets cannot spend the sign-in links",
        arguments: TestEngine.allCases
    )
    func noEnumeration(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            _ = try await identity.member("known@example.com", "a fine passphrase")
            let notice = try await identity.requestReset("nobody@example.com", source: "192.0.2.7")
            #expect(tokenInMessage(notice.body) == nil)
            #expect(notice.body.contains("no account uses this address"))
            for email in ["known@example.com", "nobody@example.com"] {
                // Resets have their own count per address (3 an hour), known address or not...
                let alreadySent = email == "known@example.com" ? 0 : 1
                for _ in alreadySent..<3 { _ = try await identity.requestReset(email, source: "192.0.2.7") }
                let limited = try await rpcError {
                    try await identity.call(
                        IdentityMethods.startPasswordReset,
                        StartPasswordResetRequest(
                            email: email,
                            verifierChallenge: IdentityHarness.linkVerifier.challenge,
                            source: "192.0.2.8"
                        )
                    )
                }
                #expect(limited.status == IdentityStatus.tooManyAttempts)
                #expect(limited.retryAfterMilliseconds == 3_600_000)
                // ...so the owner's five sign-in links an hour are all still there, and then limited alike.
                for _ in 0..<5 { _ = try await identity.requestLink(email, verifier: LinkVerifier()) }
                #expect(
                    await status { try await identity.requestLink(email, verifier: LinkVerifier()) }
                        == IdentityStatus.tooManyAttempts
                )
            }
            #expect(try await identity.count("identity_email_links", where: "email", is: "nobody@example.com") == 8)
            #expect(try await identity.count("identity_email_links", where: "email", is: "known@example.com") == 8)
        }
    }

    @Test(
        "Resets and email changes need a verifier challenge (unless the deployment allows unbound links)",
        arguments: TestEngine.allCases
    )
    func challengeRequired(engine: TestEngine) async throws {
        for unboundAllowed in [false, true] {
            try await withIdentity(engine, configure: { $0.emailLink.unboundLinksAllowed = unboundAllowed }) {
                identity in
                let member = try await identity.member("unbound@example.com", "a fine passphrase")
                let reset = await identity.status(
                    IdentityMethods.startPasswordReset,
                    StartPasswordResetRequest(email: "unbound@example.com")
                )
                let change = await identity.status(
                    IdentityMethods.startEmailChange,
                    StartEmailChangeRequest(
                        uid: member.uid,
                        sessionID: member.sessionID,
                        currentPassword: nil,
                        newEmail: "elsewhere@example.com"
                    )
                )
                #expect(reset == (unboundAllowed ? nil : .invalidArgument))
                #expect(change == (unboundAllowed ? nil : .invalidArgument))
                if unboundAllowed {
                    // Such a link works without a verifier, on any device.
                    let token = try resetToken(
                        try #require(try await identity.mails(to: "unbound@example.com", containing: "#token=").first)
                    )
                    _ = try await identity.completeReset(token, verifier: nil, "an unbound passphrase")
                }
            }
        }
    }

    @Test(
        "A reset asked for with a challenge needs the verifier; wrong ones burn the token",
        arguments: TestEngine.allCases
    )
    func resetVerifier(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            _ = try await identity.member("bound@example.com", "a fine passphrase")
            let client = LinkVerifier()
            let token = try resetToken(
                try await identity.requestReset("bound@example.com", challenge: client.challenge)
            )
            #expect(
                await status { try await identity.completeReset(token, "a newer passphrase") }
                    == IdentityStatus.verifierMismatch
            )
            #expect(
                try await identity.completeReset(token, verifier: client.verifier, "a newer passphrase").isAnonymous
                    == false
            )
            let burnt = try resetToken(
                try await identity.requestReset("bound@example.com", challenge: client.challenge)
            )
            for _ in 0..<5 {
                #expect(
                    await status { try await identity.completeReset(burnt, verifier: [9], "the newest passphrase") }
                        == IdentityStatus.verifierMismatch
                )
            }
            #expect(
                await status { try await identity.completeReset(burnt, verifier: client.verifier, "the newest one") }
                    == IdentityStatus.tokenAlreadyUsed
            )
        }
    }

    @Test(
        "A password change needs the current password or a recent sign-in, is throttled, and signs other sessions out",
        arguments: TestEngine.allCases
    )
    func change(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let first = try await identity.member("change@example.com", "the first passphrase")
            let other = try await signIn(identity, "change@example.com", "the first passphrase")
            identity.clock.advance(by: .seconds(301))
            #expect(
                await status { try await identity.changePassword(first, current: nil, new: "the second passphrase") }
                    == IdentityStatus.recentSignInRequired
            )
            #expect(
                await status {
                    try await identity.changePassword(first, current: "not the passphrase", new: "the second one!")
                } == IdentityStatus.invalidCredentials
            )
            let changed = try await identity.changePassword(
                first,
                current: "the first passphrase",
                new: "the second passphrase"
            )
            #expect(changed.uid == first.uid && changed.sessionID != first.sessionID)
            await identity.expectRevoked([first, other])
            #expect(try await signIn(identity, "change@example.com", "the second passphrase").uid == first.uid)
            // Within the window after signing in, no current password is needed.
            let fresh = try await signIn(identity, "change@example.com", "the second passphrase")
            let again = try await identity.changePassword(fresh, current: nil, new: "the third passphrase")
            await identity.expectRevoked([changed, fresh])
            #expect(
                try await identity.call(IdentityMethods.verifyAccessToken, .init(accessToken: again.accessToken)).uid
                    == first.uid
            )
            // Wrong current passwords count as failed sign-ins from their source: past 5, the next one waits.
            for _ in 0..<6 {
                #expect(
                    await status {
                        try await identity.changePassword(
                            again,
                            current: "wrong guess",
                            new: "x y z w v",
                            source: "192.0.2.9"
                        )
                    } == IdentityStatus.invalidCredentials
                )
            }
            #expect(
                await status {
                    try await identity.changePassword(
                        again,
                        current: "the third passphrase",
                        new: "abcdefghij",
                        source: "192.0.2.9"
                    )
                } == IdentityStatus.tooManyAttempts
            )
            let guest = try await identity.newGuest()
            #expect(
                await status { try await identity.changePassword(guest, current: nil, new: "a guest passphrase") }
                    == IdentityStatus.memberRequired
            )
        }
    }

    @Test(
        "A password change and a reset each tell the address when, with no link, token or password in the notice",
        arguments: TestEngine.allCases
    )
    func passwordChangedNotice(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let member = try await identity.member("notice@example.com", "the first passphrase")
            func expectNotice(_ secrets: [String]) async throws {
                let notice = try #require(
                    try await identity.call(
                        IdentityMethods.listOutbox,
                        ListOutboxRequest(recipient: "notice@example.com", limit: 1)
                    ).messages.first
                )
                let formatter = DateFormatter()
                formatter.locale = Locale(identifier: "en_US_POSIX")
                formatter.timeZone = TimeZone(identifier: "UTC")
                formatter.dateFormat = "d MMMM yyyy, HH:mm 'UTC'"
                #expect(notice.subject == "Your password was changed")
                #expect(notice.body.contains("changed on \(formatter.string(from: identity.clock.now()))."))
                #expect(notice.body.contains("signed out") && notice.body.contains("reset your password"))
                #expect(tokenInMessage(notice.body) == nil && !notice.body.contains("://"))
                for secret in secrets { #expect(!notice.body.contains(secret) && !notice.subject.contains(secret)) }
            }
            identity.clock.advance(by: .seconds(61))
            _ = try await identity.changePassword(member, current: "the first passphrase", new: "the second passphrase")
            try await expectNotice(["the first passphrase", "the second passphrase"])

            identity.clock.advance(by: .seconds(3600))
            let token = try resetToken(try await identity.requestReset("notice@example.com"))
            identity.clock.advance(by: .seconds(1))
            _ = try await identity.completeReset(token, "the third passphrase")
            try await expectNotice([token, "the second passphrase", "the third passphrase"])
        }
    }

    @Test("A password change succeeds when its notice cannot be sent", arguments: TestEngine.allCases)
    func passwordChangedNoticeUndelivered(engine: TestEngine) async throws {
        try await withLoopbackHTTPServer({ _ in .init(status: 500) }) { server in
            try await withIdentity(
                engine,
                configure: { $0.mailer = .webhook(url: server.url("/mail"), secret: "a sixteen-byte hook secret") }
            ) { identity in
                let member = try await identity.member("unsent@example.com", "the first passphrase")
                let changed = try await identity.changePassword(member, current: nil, new: "the second passphrase")
                #expect(changed.uid == member.uid)
                let attempt = try #require(server.requests.last, "the notice was tried")
                let payload = try JSONDecoder().decode([String: String].self, from: Data(attempt.body))
                #expect(payload["to"] == "unsent@example.com" && payload["subject"] == "Your password was changed")
                #expect(try await signIn(identity, "unsent@example.com", "the second passphrase").uid == member.uid)
            }
        }
    }

    @Test(
        "Removing a credential needs a recent sign-in and never removes the last one",
        arguments: TestEngine.allCases
    )
    func unlink(engine: TestEngine) async throws {
        let provider = try await TestIdentityProvider.generate([("google-1", "RS256")])
        try await withProviders(engine, apple: JWKSEndpoint(provider.jwksJSON)) { identity, _ in
            let token = try await provider.sign(identity.googleClaims(sub: "g-unlink"), kid: "google-1")
            let google = try await identity.providerSignIn(.google, token)
            let linked = try await identity.call(
                IdentityMethods.linkPassword,
                LinkPasswordRequest(uid: google.uid, email: "unlink@example.com", password: "a fine passphrase")
            ).linked()
            #expect(
                await status { try await identity.unlink(linked, .apple) } == IdentityStatus.credentialNotFound
            )
            // The email was linked after Google: while it is on probation, it cannot remove Google.
            #expect(await status { try await identity.unlink(linked, .google) } == IdentityStatus.recentSignInRequired)
            identity.clock.advance(by: .seconds(86_401))
            let fresh = try await signIn(identity, "unlink@example.com", "a fine passphrase")
            try await identity.unlink(fresh, .google)
            let user = try await identity.call(IdentityMethods.getUser, IdentityUserRequest(uid: google.uid))
            #expect(user.providers.isEmpty && user.email == "unlink@example.com")
            #expect(await status { try await identity.unlink(fresh, .email) } == IdentityStatus.lastCredential)
            // Nothing else was revoked.
            _ = try await identity.call(IdentityMethods.verifyAccessToken, .init(accessToken: fresh.accessToken))
            identity.clock.advance(by: .seconds(301))
            #expect(await status { try await identity.unlink(fresh, .email) } == IdentityStatus.recentSignInRequired)
            let guest = try await identity.newGuest()
            #expect(await status { try await identity.unlink(guest, .email) } == IdentityStatus.memberRequired)
        }
    }

    @Test(
        "An email change mails the new address, moves the credential with its password, tells the old address",
        arguments: TestEngine.allCases
    )
    func emailChange(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let member = try await identity.member("old@example.com", "a fine passphrase")
            _ = try await identity.member("taken@example.com", "another passphrase")
            func start(_ email: String, current: String? = nil) async throws -> String {
                try await identity.call(
                    IdentityMethods.startEmailChange,
                    StartEmailChangeRequest(
                        uid: member.uid,
                        sessionID: member.sessionID,
                        currentPassword: current,
                        newEmail: email,
                        verifierChallenge: IdentityHarness.linkVerifier.challenge
                    )
                )
                let message = try #require(
                    try await identity.call(IdentityMethods.listOutbox, ListOutboxRequest(recipient: email, limit: 1))
                        .messages.first
                )
                #expect(message.body.contains("foyer://email-change#token="))
                return try #require(tokenInMessage(message.body))
            }
            func complete(_ token: String) async throws {
                try await identity.call(
                    IdentityMethods.completeEmailChange,
                    CompleteEmailChangeRequest(token: token, verifier: IdentityHarness.linkVerifier.verifier)
                )
            }
            let token = try await start("New@Example.com")
            // The token is no sign-in link and no reset link.
            #expect(
                await status { try await identity.completeLink(token, verifier: LinkVerifier().verifier) }
                    == IdentityStatus.invalidToken
            )
            #expect(
                await status { try await identity.completeReset(token, "some passphrase") }
                    == IdentityStatus.invalidToken
            )
            try await complete(token)
            let user = try await identity.call(IdentityMethods.getUser, IdentityUserRequest(uid: member.uid))
            #expect(user.email == "new@example.com" && user.emailVerified && user.hasPassword)
            #expect(try await signIn(identity, "new@example.com", "a fine passphrase").uid == member.uid)
            #expect(
                await status { try await signIn(identity, "old@example.com", "a fine passphrase") }
                    == IdentityStatus.invalidCredentials
            )
            // Told twice, with no link either time: when the change was asked for, and when it was made.
            let notices = try await identity.call(
                IdentityMethods.listOutbox,
                ListOutboxRequest(recipient: "old@example.com", limit: 10)
            ).messages
            #expect(
                Set(notices.map(\.subject)) == [
                    "Someone asked to change your email address", "Your email address was changed",
                ]
            )
            #expect(notices.allSatisfy { tokenInMessage($0.body) == nil })
            #expect(await status { try await complete(token) } == IdentityStatus.tokenAlreadyUsed)
            // Sessions stay.
            _ = try await identity.call(IdentityMethods.verifyAccessToken, .init(accessToken: member.accessToken))

            // A taken address gets the same answer at start; the completion is refused and spends the token.
            let taken = try await start("taken@example.com", current: "a fine passphrase")
            #expect(await status { try await complete(taken) } == IdentityStatus.emailAlreadyInUse)
            #expect(await status { try await complete(taken) } == IdentityStatus.tokenAlreadyUsed)

            identity.clock.advance(by: .seconds(301))
            #expect(await status { try await start("later@example.com") } == IdentityStatus.recentSignInRequired)
            #expect(
                await status { try await start("later@example.com", current: "wrong passphrase") }
                    == IdentityStatus.invalidCredentials
            )
            let guest = try await identity.newGuest()
            #expect(
                await status {
                    try await identity.call(
                        IdentityMethods.startEmailChange,
                        StartEmailChangeRequest(
                            uid: guest.uid,
                            sessionID: guest.sessionID,
                            currentPassword: nil,
                            newEmail: "guest@example.com",
                            verifierChallenge: IdentityHarness.linkVerifier.challenge
                        )
                    )
                } == IdentityStatus.memberRequired
            )
        }
    }
}
