import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerIdentity
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import Testing

/// Account pre-hijacking: an attacker sets up `victim@example.com` with a password on an account of theirs, adds
/// their own Google identity, and waits for the victim to prove the address. Proving it must leave the attacker
/// nothing: no password, no provider identity, no session, no ticket (docs/DECISIONS.md, "Proving an address").
@Suite("Pre-hijacking: proving an address removes what was set up without proof")
struct PreHijackingTests {
    static let victimEmail = "victim@example.com"
    static let attackerPassword = "attacker knows this"

    /// The attacker's account: a guest that linked the victim's address with a password and the attacker's Google
    /// identity, in the given order. Returns every session the attacker got along the way.
    private func plantAccount(
        _ identity: IdentityHarness,
        google: TestIdentityProvider,
        googleFirst: Bool
    ) async throws -> [SessionTokens] {
        let guest = try await identity.newGuest()
        let token = try await google.sign(
            identity.googleClaims(sub: "attacker-google", email: "attacker@gmail.com", verified: true, jti: "plant"),
            kid: "google-1"
        )
        let linkGoogle = {
            try await identity.call(
                IdentityMethods.linkProvider,
                LinkProviderRequest(uid: guest.uid, provider: .google, idToken: token)
            ).linked()
        }
        let linkPassword = {
            try await identity.call(
                IdentityMethods.linkPassword,
                LinkPasswordRequest(uid: guest.uid, email: Self.victimEmail, password: Self.attackerPassword)
            ).linked()
        }
        let sessions =
            googleFirst
            ? [guest, try await linkGoogle(), try await linkPassword()]
            : [guest, try await linkPassword(), try await linkGoogle()]
        let user = try await identity.call(IdentityMethods.getUser, IdentityUserRequest(uid: guest.uid))
        #expect(user.hasPassword && !user.emailVerified && user.providers.count == 1, "the plant took")
        // Tokens carry whole seconds; the proof comes later than every token the attacker holds.
        identity.clock.advance(by: .seconds(2))
        return sessions
    }

    private func expectPasswordRefused(_ identity: IdentityHarness) async {
        #expect(
            await identity.status(
                IdentityMethods.signInWithPassword,
                PasswordSignInRequest(email: Self.victimEmail, password: Self.attackerPassword)
            ) == IdentityStatus.invalidCredentials
        )
    }

    @Test(
        "The password half: after the victim proves the address by an email link, the attacker's password and sessions are dead",
        arguments: TestEngine.allCases
    )
    func passwordHalf(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let attacker = try await identity.newGuest()
            let planted = try await identity.call(
                IdentityMethods.linkPassword,
                LinkPasswordRequest(uid: attacker.uid, email: Self.victimEmail, password: Self.attackerPassword)
            ).linked()
            identity.clock.advance(by: .seconds(2))
            let victim = LinkVerifier()
            let token = try await identity.requestLink(Self.victimEmail, verifier: victim)
            let session = try await identity.completeLink(token, verifier: victim.verifier)
            // The account holding the address is the victim's now, with nothing of the attacker's on it.
            #expect(session.uid == attacker.uid && !session.isAnonymous)
            await expectPasswordRefused(identity)
            await identity.expectRevoked([attacker, planted])
            _ = try await identity.call(
                IdentityMethods.verifyAccessToken,
                VerifyAccessTokenRequest(accessToken: session.accessToken)
            )
            let user = try await identity.call(IdentityMethods.getUser, IdentityUserRequest(uid: session.uid))
            #expect(user.emailVerified && !user.hasPassword && user.providers.isEmpty)
        }
    }

    @Test(
        "The provider half: the attacker's Google identity is unlinked, whichever came first, and their Google token no longer reaches the account",
        arguments: TestEngine.allCases,
        [true, false]
    )
    func providerHalf(engine: TestEngine, googleFirst: Bool) async throws {
        let google = try await TestIdentityProvider.generate([("google-1", "ES256")])
        let endpoint = JWKSEndpoint(google.jwksJSON)
        try await withProviders(engine, apple: endpoint, google: endpoint) { identity, _ in
            let planted = try await plantAccount(identity, google: google, googleFirst: googleFirst)
            let account = planted[0].uid
            let victim = LinkVerifier()
            let token = try await identity.requestLink(Self.victimEmail, verifier: victim)
            let session = try await identity.completeLink(token, verifier: victim.verifier)
            #expect(session.uid == account)

            let user = try await identity.call(IdentityMethods.getUser, IdentityUserRequest(uid: account))
            #expect(user.providers.isEmpty, "the attacker's Google identity is gone")
            #expect(user.emailVerified && !user.hasPassword)
            await expectPasswordRefused(identity)
            await identity.expectRevoked(planted)
            // A fresh Google token of the attacker signs in to an account of its own, never the victim's.
            let later = try await google.sign(
                identity.googleClaims(
                    sub: "attacker-google",
                    email: "attacker@gmail.com",
                    verified: true,
                    jti: "later"
                ),
                kid: "google-1"
            )
            let attackerAgain = try await identity.providerSignIn(.google, later)
            #expect(attackerAgain.uid != account)
            // The victim's own session still works.
            _ = try await identity.call(
                IdentityMethods.refreshSession,
                RefreshSessionRequest(refreshToken: session.refreshToken)
            )
        }
    }

    @Test(
        "Proving the address with a link from the victim's own guest cleans the attacker's account the same way",
        arguments: TestEngine.allCases
    )
    func proofByLinkFromAnotherUser(engine: TestEngine) async throws {
        let google = try await TestIdentityProvider.generate([("google-1", "ES256")])
        let endpoint = JWKSEndpoint(google.jwksJSON)
        try await withProviders(engine, apple: endpoint, google: endpoint) { identity, _ in
            let planted = try await plantAccount(identity, google: google, googleFirst: true)
            let victimGuest = try await identity.newGuest()
            let verifier = LinkVerifier()
            let token = try await identity.requestLink(
                Self.victimEmail,
                purpose: .link,
                uid: victimGuest.uid,
                verifier: verifier
            )
            let details = try await expectConflict {
                try await identity.completeLinkAttempt(token, verifier: verifier.verifier, uid: victimGuest.uid)
            }
            #expect(details.otherUID == planted[0].uid)
            let user = try await identity.call(IdentityMethods.getUser, IdentityUserRequest(uid: planted[0].uid))
            #expect(user.providers.isEmpty && !user.hasPassword && user.emailVerified)
            await identity.expectRevoked(planted)
            // The victim's ticket, issued after the clean-up, signs in to the address's account.
            let account = try await identity.redeem(victimGuest, ticket: details.ticket)
            #expect(account.uid == planted[0].uid)
        }
    }

    @Test(
        "A conflict ticket the attacker got before the proof is withdrawn by it",
        arguments: TestEngine.allCases
    )
    func ticketsWithdrawn(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let attacker = try await identity.newGuest()
            _ = try await identity.call(
                IdentityMethods.linkPassword,
                LinkPasswordRequest(uid: attacker.uid, email: Self.victimEmail, password: Self.attackerPassword)
            ).linked()
            // A second guest of the attacker proves the password: a ticket into the planted account.
            let second = try await identity.newGuest()
            let conflict = try await expectConflict {
                try await identity.call(
                    IdentityMethods.linkPassword,
                    LinkPasswordRequest(uid: second.uid, email: Self.victimEmail, password: Self.attackerPassword)
                )
            }
            let ticket = conflict.ticket
            let victim = LinkVerifier()
            let token = try await identity.requestLink(Self.victimEmail, verifier: victim)
            _ = try await identity.completeLink(token, verifier: victim.verifier)
            #expect(
                await status { try await identity.redeem(second, ticket: ticket) } == IdentityStatus.ticketInvalid
            )
        }
    }

    @Test(
        "A verified account keeps the password and Google identity its owner added after the proof, and its sessions, when the address is proven again",
        arguments: TestEngine.allCases
    )
    func verifiedAccountUntouched(engine: TestEngine) async throws {
        let google = try await TestIdentityProvider.generate([("google-1", "ES256")])
        let endpoint = JWKSEndpoint(google.jwksJSON)
        try await withProviders(engine, apple: endpoint, google: endpoint) { identity, _ in
            let owner = LinkVerifier()
            let first = try await identity.completeLink(
                try await identity.requestLink("owner@example.com", verifier: owner),
                verifier: owner.verifier
            )
            let withPassword = try await identity.call(
                IdentityMethods.linkPassword,
                LinkPasswordRequest(uid: first.uid, email: "owner@example.com", password: "the owner's own passphrase")
            ).linked()
            let googleToken = try await google.sign(
                identity.googleClaims(sub: "owner-google", jti: "owner-1"),
                kid: "google-1"
            )
            let withGoogle = try await identity.call(
                IdentityMethods.linkProvider,
                LinkProviderRequest(uid: first.uid, provider: .google, idToken: googleToken)
            ).linked()
            identity.clock.advance(by: .seconds(2))

            let again = LinkVerifier()
            let later = try await identity.completeLink(
                try await identity.requestLink("owner@example.com", verifier: again),
                verifier: again.verifier
            )
            #expect(later.uid == first.uid)
            let user = try await identity.call(IdentityMethods.getUser, IdentityUserRequest(uid: first.uid))
            #expect(user.hasPassword && user.emailVerified && user.providers.map(\.subject) == ["owner-google"])
            let byPassword = try await identity.call(
                IdentityMethods.signInWithPassword,
                PasswordSignInRequest(email: "owner@example.com", password: "the owner's own passphrase")
            )
            #expect(byPassword.uid == first.uid)
            let nextGoogle = try await google.sign(
                identity.googleClaims(sub: "owner-google", jti: "owner-2"),
                kid: "google-1"
            )
            #expect(try await identity.providerSignIn(.google, nextGoogle).uid == first.uid)
            for session in [first, withPassword, withGoogle] {
                _ = try await identity.call(
                    IdentityMethods.refreshSession,
                    RefreshSessionRequest(refreshToken: session.refreshToken)
                )
            }
        }
    }
}
