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

@Suite("ID tokens: the nonce requirement, and each token accepted once")
struct ProviderTokenReplayTests {
    @Test("Apple requires a nonce by default, Google does not; each is a setting")
    func defaults() {
        #expect(ProviderSettings.apple(audiences: ["a"]).nonceRequired)
        #expect(!ProviderSettings.google(audiences: ["g"]).nonceRequired)
        #expect(!ProviderSettings(issuers: ["i"], audiences: ["a"], keys: .url("https://x")).nonceRequired)
    }

    @Test(
        "An Apple token without a nonce is refused by default, and accepted where the nonce is made optional",
        arguments: [TestEngine.sqlite]
    )
    func appleNonceRequired(engine: TestEngine) async throws {
        let apple = try await TestIdentityProvider.generate([("apple-1", "RS256")])
        try await withProviders(engine, apple: JWKSEndpoint(apple.jwksJSON)) { identity, _ in
            let bare = try await apple.sign(identity.appleClaims(sub: "no-nonce"), kid: "apple-1")
            let error = try await rpcError { try await identity.providerSignIn(.apple, bare) }
            #expect(error.status == IdentityStatus.nonceMismatch && error.message == "a nonce is required")
            // Refused before anything was recorded: no account, no used-token mark.
            #expect(try await identity.count("identity_users") == 0)
            #expect(try await identity.count("identity_used_nonces") == 0)
        }
        try await withProviders(
            engine,
            apple: JWKSEndpoint(apple.jwksJSON),
            configure: { $0.apple?.nonceRequired = false }
        ) { identity, _ in
            let bare = try await apple.sign(identity.appleClaims(sub: "no-nonce"), kid: "apple-1")
            #expect(!(try await identity.providerSignIn(.apple, bare)).isAnonymous)
        }
    }

    @Test(
        "A token without a nonce is accepted once: by its jti, or without one by its signed part, until it expires",
        arguments: TestEngine.allCases
    )
    func acceptedOnce(engine: TestEngine) async throws {
        let google = try await TestIdentityProvider.generate([("google-1", "ES256")])
        let endpoint = JWKSEndpoint(google.jwksJSON)
        try await withProviders(engine, apple: endpoint, google: endpoint) { identity, _ in
            // Without a jti: the same token twice.
            let token = try await google.sign(identity.googleClaims(sub: "g-user"), kid: "google-1")
            let first = try await identity.providerSignIn(.google, token)
            let replay = try await rpcError { try await identity.providerSignIn(.google, token) }
            #expect(
                replay.status == IdentityStatus.nonceAlreadyUsed && replay.message == "the ID token was already used"
            )
            // The same token with its signature written differently (the unused low bits of the signature's last
            // base64url character set) is not a new token either: whatever the decoder makes of it, it never signs
            // in again.
            let respelled = Self.flippingUnusedBits(of: token)
            #expect(respelled != token)
            let respelledStatus = await status { try await identity.providerSignIn(.google, respelled) }
            #expect(
                respelledStatus == IdentityStatus.nonceAlreadyUsed || respelledStatus == IdentityStatus.invalidToken,
                "\(String(describing: respelledStatus))"
            )
            // Nor can it be used to link instead.
            let guest = try await identity.newGuest()
            #expect(
                await identity.status(
                    IdentityMethods.linkProvider,
                    LinkProviderRequest(uid: guest.uid, provider: .google, idToken: token)
                ) == IdentityStatus.nonceAlreadyUsed
            )

            // With a jti: another token with the same jti (other claims) is the same token to identity.
            let withID = try await google.sign(identity.googleClaims(sub: "g-user", jti: "jti-1"), kid: "google-1")
            let sameID = try await google.sign(
                identity.googleClaims(sub: "g-user", email: "x@gmail.com", jti: "jti-1"),
                kid: "google-1"
            )
            let otherID = try await google.sign(identity.googleClaims(sub: "g-user", jti: "jti-2"), kid: "google-1")
            #expect(try await identity.providerSignIn(.google, withID).uid == first.uid)
            #expect(
                await status { try await identity.providerSignIn(.google, sameID) } == IdentityStatus.nonceAlreadyUsed
            )
            #expect(try await identity.providerSignIn(.google, otherID).uid == first.uid)

            // The marks are kept until the tokens expire (exp plus the skew), with the uid they signed in.
            let marks = try await identity.count("identity_used_nonces", where: "uid", is: first.uid)
            #expect(marks == 3)
            let expiry = try await identity.database.withConnection { sql in
                try await sql.raw("SELECT MIN(expires_at) AS e FROM identity_used_nonces").first()!
                    .decode(column: "e", as: Int64.self)
            }
            let expected = (Int64(identity.clock.now().timeIntervalSince1970) + 3600 + 60) * 1_000_000
            #expect(expiry == expected)
        }
    }

    /// `token` with the lowest bit of its last character's 6-bit value flipped: an ES256 signature is 64 bytes, 86
    /// base64url characters, whose last 4 bits carry nothing.
    static func flippingUnusedBits(of token: String) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let last = token.last!
        let value = alphabet.firstIndex(of: last)!
        return String(token.dropLast()) + String(alphabet[value ^ 1])
    }

    @Test(
        "An Apple token whose nonce was made optional is accepted once too",
        arguments: [TestEngine.sqlite]
    )
    func appleWithoutNonceOnce(engine: TestEngine) async throws {
        let apple = try await TestIdentityProvider.generate([("apple-1", "RS256")])
        try await withProviders(
            engine,
            apple: JWKSEndpoint(apple.jwksJSON),
            configure: { $0.apple?.nonceRequired = false }
        ) { identity, _ in
            let token = try await apple.sign(identity.appleClaims(sub: "apple-user"), kid: "apple-1")
            _ = try await identity.providerSignIn(.apple, token)
            #expect(
                await status { try await identity.providerSignIn(.apple, token) } == IdentityStatus.nonceAlreadyUsed
            )
        }
    }
}
