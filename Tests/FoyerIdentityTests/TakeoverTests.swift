import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerIdentity
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import Testing

extension IdentityHarness {
    /// Asks to change `session`'s address to `newEmail` (with `current`, or the session's recent sign-in); the token
    /// mailed to the new address.
    func startChange(_ session: SessionTokens, to newEmail: String, current: String? = nil) async throws -> String {
        try await call(
            IdentityMethods.startEmailChange,
            StartEmailChangeRequest(
                uid: session.uid,
                sessionID: session.sessionID,
                currentPassword: current,
                newEmail: newEmail,
                verifierChallenge: IdentityHarness.linkVerifier.challenge
            )
        )
        let message = try #require(
            try await call(IdentityMethods.listOutbox, ListOutboxRequest(recipient: newEmail, limit: 1)).messages.first
        )
        return try #require(tokenInMessage(message.body))
    }

    func completeChange(_ token: String) async throws {
        try await call(
            IdentityMethods.completeEmailChange,
            CompleteEmailChangeRequest(token: token, verifier: IdentityHarness.linkVerifier.verifier)
        )
    }

    /// The messages to `recipient` whose body contains `text` (the test clock stands still, so "newest" is no order).
    func mails(to recipient: String, containing text: String) async throws -> [OutboxMessage] {
        try await call(IdentityMethods.listOutbox, ListOutboxRequest(recipient: recipient, limit: 100)).messages
            .filter { $0.body.contains(text) }
    }

    /// The account's address, as `getUser` answers it.
    func email(of uid: String) async throws -> String? {
        try await call(IdentityMethods.getUser, IdentityUserRequest(uid: uid)).email
    }
}

/// Two account takeovers and their fixes: a pending email change that outlived the steps meant to end every way in,
/// and a credential added to a member from a stolen old session (docs/DECISIONS.md, "Pending credential changes die
/// with the sessions" and "Step-up for adding a way in").
@Suite("Takeovers: pending email changes, credentials added to members")
struct TakeoverTests {
    @Test(
        "Pre-hijack: an email change kept by whoever set up an unproven address dies when the owner proves it",
        arguments: TestEngine.allCases
    )
    func preHijackedEmailChange(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let attacker = try await identity.member("victim@example.com", "the attacker's passphrase")
            let kept = try await identity.startChange(
                attacker,
                to: "attacker@example.com",
                current: "the attacker's passphrase"
            )
            // The address is told at once, before anything changes.
            let asked = try await identity.mails(to: "victim@example.com", containing: "asked to change")
            #expect(asked.map(\.subject) == ["Someone asked to change your email address"])
            #expect(asked.allSatisfy { tokenInMessage($0.body) == nil })
            identity.clock.advance(by: .seconds(2))
            let victim = LinkVerifier()
            let owner = try await identity.completeLink(
                try await identity.requestLink("victim@example.com", verifier: victim),
                verifier: victim.verifier
            )
            #expect(owner.uid == attacker.uid)
            #expect(await status { try await identity.completeChange(kept) } == IdentityStatus.tokenExpired)
            #expect(try await identity.email(of: owner.uid) == "victim@example.com")
        }
    }

    @Test(
        "Persistence: a change a thief started dies with sign-out everywhere, a reset, a password change, a deletion",
        arguments: TestEngine.allCases
    )
    func changeDiesWithEveryRecoveryStep(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let recoveries: [(String, (SessionTokens) async throws -> Void)] = [
                (
                    "sign-out everywhere",
                    { owner in
                        try await identity.call(IdentityMethods.revokeAllSessions, IdentityUserRequest(uid: owner.uid))
                    }
                ),
                (
                    "password reset",
                    { owner in
                        let email = try #require(try await identity.email(of: owner.uid))
                        let token = try resetToken(try await identity.requestReset(email))
                        _ = try await identity.completeReset(token, "the owner's new passphrase")
                    }
                ),
                (
                    "password change",
                    { owner in
                        _ = try await identity.changePassword(
                            owner,
                            current: "the owner's passphrase",
                            new: "the owner's changed passphrase"
                        )
                    }
                ),
            ]
            for (index, (name, recover)) in recoveries.enumerated() {
                let email = "owner\(index)@example.com"
                let owner = try await identity.member(email, "the owner's passphrase")
                let thief = try await signIn(identity, email, "the owner's passphrase")
                let kept = try await identity.startChange(thief, to: "thief\(index)@example.com")
                identity.clock.advance(by: .seconds(1))
                try await recover(owner)
                #expect(
                    await status { try await identity.completeChange(kept) } == IdentityStatus.tokenExpired,
                    "\(name)"
                )
                #expect(try await identity.email(of: owner.uid) == email, "\(name)")
            }
            // Deletion: the user is gone with its pending tokens.
            let doomed = try await identity.member("doomed@example.com", "the owner's passphrase")
            let kept = try await identity.startChange(doomed, to: "elsewhere@example.com")
            _ = try await identity.call(
                IdentityMethods.beginDelete,
                BeginDeleteRequest(uid: doomed.uid, operationID: "delete-doomed")
            )
            #expect(await status { try await identity.completeChange(kept) } == IdentityStatus.tokenExpired)
        }
    }

    @Test(
        "A change needs the asking session alive at completion; a pending reset and link die with the sessions too",
        arguments: TestEngine.allCases
    )
    func askingSessionMustLive(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let owner = try await identity.member("alive@example.com", "a fine passphrase")
            let thief = try await signIn(identity, "alive@example.com", "a fine passphrase")
            let kept = try await identity.startChange(thief, to: "thief@example.com")
            // Only the thief's session ends (its sign-out): the change it asked for cannot complete.
            try await identity.call(
                IdentityMethods.revokeSession,
                RevokeSessionRequest(uid: thief.uid, sessionID: thief.sessionID)
            )
            #expect(await status { try await identity.completeChange(kept) } == IdentityStatus.tokenExpired)
            #expect(try await identity.email(of: owner.uid) == "alive@example.com")
            // The same request from a live session completes.
            try await identity.completeChange(try await identity.startChange(owner, to: "moved@example.com"))
            #expect(try await identity.email(of: owner.uid) == "moved@example.com")

            // A reset token and a guest's link token are bound to their user as well.
            let resetLink = try resetToken(try await identity.requestReset("moved@example.com"))
            let guest = try await identity.newGuest()
            let verifier = LinkVerifier()
            let linkToken = try await identity.requestLink(
                "guest-link@example.com",
                purpose: .link,
                uid: guest.uid,
                verifier: verifier
            )
            for uid in [owner.uid, guest.uid] {
                try await identity.call(IdentityMethods.revokeAllSessions, IdentityUserRequest(uid: uid))
            }
            #expect(
                await status { try await identity.completeReset(resetLink, "a passphrase of mine") }
                    == IdentityStatus.tokenExpired
            )
            #expect(
                await status { try await identity.completeLink(linkToken, verifier: verifier.verifier, uid: guest.uid) }
                    == IdentityStatus.tokenExpired
            )
        }
    }

    @Test(
        "Linking to a member or deleting one needs a recent sign-in; a guest needs none",
        arguments: TestEngine.allCases
    )
    func stepUpForMembers(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            func verify(_ session: SessionTokens) async -> RPCStatus? {
                await identity.status(
                    IdentityMethods.verifyAccessToken,
                    VerifyAccessTokenRequest(accessToken: session.accessToken, requirement: .guestOrRecentSignIn)
                )
            }
            let member = try await identity.member("stepup@example.com", "a fine passphrase")
            let guest = try await identity.newGuest()
            #expect(await verify(member) == nil)
            #expect(await verify(guest) == nil)
            identity.clock.advance(by: .seconds(301))
            // A refreshed session keeps its start: still not a recent sign-in.
            let refreshed = try await identity.call(
                IdentityMethods.refreshSession,
                RefreshSessionRequest(refreshToken: member.refreshToken)
            )
            #expect(await verify(refreshed) == IdentityStatus.recentSignInRequired)
            let freshGuest = try await identity.call(
                IdentityMethods.refreshSession,
                RefreshSessionRequest(refreshToken: guest.refreshToken)
            )
            #expect(await verify(freshGuest) == nil)
            // Signing in again is the step-up.
            #expect(await verify(try await signIn(identity, "stepup@example.com", "a fine passphrase")) == nil)

            // A guest's token from before it linked a credential still says is_anonymous; the account is a member
            // now, so its old session needs the step-up too.
            let linked = try await identity.call(
                IdentityMethods.linkPassword,
                LinkPasswordRequest(
                    uid: freshGuest.uid,
                    email: "was-a-guest@example.com",
                    password: "a fine passphrase"
                )
            ).linked()
            #expect(!linked.isAnonymous)
            #expect(try decodeClaims(freshGuest.accessToken).is_anonymous)
            #expect(await verify(freshGuest) == IdentityStatus.recentSignInRequired)
        }
    }

    @Test(
        "A credential linked recently cannot remove or change the older ones; the owner is mailed every link and unlink",
        arguments: TestEngine.allCases
    )
    func probationAndNotices(engine: TestEngine) async throws {
        let google = try await TestIdentityProvider.generate([("google-1", "RS256")])
        try await withProviders(engine, apple: JWKSEndpoint(google.jwksJSON)) { identity, _ in
            // The owner: an address proven by a link, then a password set on it (the address is told).
            let verifier = LinkVerifier()
            let owner = try await identity.completeLink(
                try await identity.requestLink("owner@example.com", verifier: verifier),
                verifier: verifier.verifier
            )
            _ = try await identity.call(
                IdentityMethods.linkPassword,
                LinkPasswordRequest(uid: owner.uid, email: "owner@example.com", password: "the owner's passphrase")
            ).linked()
            #expect(try await identity.mails(to: "owner@example.com", containing: "A password was set").count == 1)
            identity.clock.advance(by: .seconds(60))

            // A thief with a fresh session links their own Google identity and signs in with it.
            let token = try await google.sign(identity.googleClaims(sub: "thief-google"), kid: "google-1")
            _ = try await identity.call(
                IdentityMethods.linkProvider,
                LinkProviderRequest(uid: owner.uid, provider: .google, idToken: token)
            ).linked()
            let added = try await identity.mails(to: "owner@example.com", containing: "Sign in with Google was added")
            #expect(added.map(\.subject) == ["A sign-in method of your account changed"])
            #expect(added.allSatisfy { tokenInMessage($0.body) == nil })
            let thief = try await identity.providerSignIn(
                .google,
                try await google.sign(identity.googleClaims(sub: "thief-google", jti: "again"), kid: "google-1")
            )
            #expect(thief.uid == owner.uid)
            // Its session is recent, but it cannot strip or move the owner's older email credential...
            #expect(await status { try await identity.unlink(thief, .email) } == IdentityStatus.recentSignInRequired)
            #expect(
                await status { try await identity.startChange(thief, to: "thief@example.com") }
                    == IdentityStatus.recentSignInRequired
            )
            #expect(
                await status { try await identity.changePassword(thief, current: nil, new: "the thief's passphrase") }
                    == IdentityStatus.recentSignInRequired
            )
            // ...while the owner's current password still proves the owner, and the owner can remove the newcomer.
            let signedIn = try await signIn(identity, "owner@example.com", "the owner's passphrase")
            try await identity.unlink(signedIn, .google)
            #expect(
                try await identity.mails(to: "owner@example.com", containing: "Sign in with Google was removed").count
                    == 1
            )
            #expect(
                try await identity.call(IdentityMethods.getUser, IdentityUserRequest(uid: owner.uid)).providers.isEmpty
            )

            // Once the probation is over, a fresh sign-in may remove an older credential.
            let again = try await google.sign(identity.googleClaims(sub: "owner-google", jti: "link"), kid: "google-1")
            let withGoogle = try await identity.call(
                IdentityMethods.linkProvider,
                LinkProviderRequest(uid: owner.uid, provider: .google, idToken: again)
            ).linked()
            #expect(
                await status { try await identity.unlink(withGoogle, .email) } == IdentityStatus.recentSignInRequired
            )
            identity.clock.advance(by: .seconds(86_401))
            let later = try await identity.providerSignIn(
                .google,
                try await google.sign(identity.googleClaims(sub: "owner-google", jti: "later"), kid: "google-1")
            )
            try await identity.unlink(later, .email)
            #expect(try await identity.email(of: owner.uid) == nil)
        }
    }
}
