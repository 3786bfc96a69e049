import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerIdentity
import FoyerRPC
import FoyerStorage
import FoyerTestSupport
import FoyerWire
import Testing

/// Runs `body` with identity configured for Apple (keys at `/apple`) and Google (keys at `/google`) on a loopback
/// server serving the endpoints' JWKS.
func withProviders<T: Sendable>(
    _ engine: TestEngine,
    apple: JWKSEndpoint,
    google: JWKSEndpoint? = nil,
    clock: TestClock = TestClock(),
    configure: @escaping (inout IdentityConfiguration) -> Void = { _ in },
    _ body: (IdentityHarness, LoopbackHTTPServer) async throws -> T
) async throws -> T {
    try await withLoopbackHTTPServer({ request in
        request.path == "/google" ? (google ?? apple).response(request) : apple.response(request)
    }) { server in
        try await withIdentity(
            engine,
            clock: clock,
            configure: { configuration in
                var appleSettings = ProviderSettings.apple(audiences: [appleAudience, "com.example.services"])
                appleSettings.keys = .url(server.url("/apple"))
                configuration.apple = appleSettings
                var googleSettings = ProviderSettings.google(audiences: [googleAudience])
                googleSettings.keys = .url(server.url("/google"))
                configuration.google = googleSettings
                configure(&configuration)
            }
        ) { identity in
            try await body(identity, server)
        }
    }
}

extension IdentityHarness {
    func appleClaims(sub: String, nonce: String? = nil, email: String? = nil) -> IDTokenClaims {
        let now = Int64(clock.now().timeIntervalSince1970)
        return IDTokenClaims(
            iss: appleIssuer,
            sub: sub,
            aud: appleAudience,
            exp: now + 600,
            iat: now,
            nonce: nonce,
            email: email,
            email_verified: email == nil ? nil : .string("true")
        )
    }

    func googleClaims(
        sub: String,
        email: String? = nil,
        verified: Bool? = nil,
        hd: String? = nil,
        jti: String? = nil
    ) -> IDTokenClaims {
        let now = Int64(clock.now().timeIntervalSince1970)
        return IDTokenClaims(
            iss: "https://accounts.google.com",
            sub: sub,
            aud: googleAudience,
            exp: now + 3600,
            iat: now,
            email: email,
            email_verified: verified.map { .bool($0) },
            hd: hd,
            jti: jti
        )
    }

    func providerSignIn(
        _ provider: IdentityProvider,
        _ token: String,
        rawNonce: String? = nil
    ) async throws
        -> SessionTokens
    {
        try await call(
            IdentityMethods.signInWithProvider,
            ProviderSignInRequest(provider: provider, idToken: token, rawNonce: rawNonce)
        )
    }
}

@Suite("Sign in with Apple and Google")
struct ProviderTokenTests {
    @Test(
        "An Apple RS256 token with a nonce signs in, creating a permanent account; its nonce is refused afterwards; the same sub finds the same account",
        arguments: TestEngine.allCases
    )
    func appleSignInAndNonceReplay(engine: TestEngine) async throws {
        let provider = try await TestIdentityProvider.generate([("apple-1", "RS256")])
        try await withProviders(engine, apple: JWKSEndpoint(provider.jwksJSON)) { identity, _ in
            let nonce = TestNonce()
            let second = TestNonce()
            let tokens = try await provider.sign(
                [
                    identity.appleClaims(
                        sub: "001.apple.user",
                        nonce: nonce.hashed,
                        email: "a@privaterelay.appleid.com"
                    ),
                    identity.appleClaims(sub: "001.apple.user", nonce: second.hashed),
                ],
                kid: "apple-1"
            )
            let session = try await identity.providerSignIn(.apple, tokens[0], rawNonce: nonce.raw)
            #expect(!session.isAnonymous)
            #expect(
                await status { try await identity.providerSignIn(.apple, tokens[0], rawNonce: nonce.raw) }
                    == IdentityStatus.nonceAlreadyUsed
            )
            // Another token of the same Apple user (a new nonce) signs in to the same account.
            let again = try await identity.providerSignIn(.apple, tokens[1], rawNonce: second.raw)
            #expect(again.uid == session.uid)
            let user = try await identity.call(IdentityMethods.getUser, IdentityUserRequest(uid: session.uid))
            #expect(
                user.providers == [
                    LinkedIdentity(
                        provider: .apple,
                        subject: "001.apple.user",
                        email: "a@privaterelay.appleid.com",
                        emailTrusted: true
                    )
                ]
            )
            #expect(user.email == nil, "a provider's email is not an email credential")
        }
    }

    @Test("Nonce: hex(sha256(raw)) must match, and be present in both or neither", arguments: [TestEngine.sqlite])
    func nonceRules(engine: TestEngine) async throws {
        let provider = try await TestIdentityProvider.generate([("apple-1", "RS256")])
        // "Neither" needs the nonce to be optional, which it is not for Apple by default (NonceRequirementTests).
        let configure: (inout IdentityConfiguration) -> Void = { $0.apple?.nonceRequired = false }
        try await withProviders(engine, apple: JWKSEndpoint(provider.jwksJSON), configure: configure) { identity, _ in
            let nonce = TestNonce()
            let tokens = try await provider.sign(
                [
                    identity.appleClaims(sub: "u1", nonce: nonce.hashed), identity.appleClaims(sub: "u1"),
                    identity.appleClaims(sub: "u1", nonce: nonce.raw),
                ],
                kid: "apple-1"
            )
            #expect(
                await status { try await identity.providerSignIn(.apple, tokens[0]) } == IdentityStatus.nonceMismatch
            )
            #expect(
                await status { try await identity.providerSignIn(.apple, tokens[1], rawNonce: nonce.raw) }
                    == IdentityStatus.nonceMismatch
            )
            #expect(
                await status { try await identity.providerSignIn(.apple, tokens[0], rawNonce: nonce.raw + "x") }
                    == IdentityStatus.nonceMismatch
            )
            // The claim must be the hash, not the raw nonce itself.
            #expect(
                await status { try await identity.providerSignIn(.apple, tokens[2], rawNonce: nonce.raw) }
                    == IdentityStatus.nonceMismatch
            )
            // None of those spent the nonce.
            _ = try await identity.providerSignIn(.apple, tokens[0], rawNonce: nonce.raw)
            _ = try await identity.providerSignIn(.apple, tokens[1])
        }
    }

    @Test(
        "Wrong issuer, wrong audience, expired, not yet valid, tampered, other algorithms and unconfigured providers are refused",
        arguments: [TestEngine.sqlite]
    )
    func claimChecks(engine: TestEngine) async throws {
        let provider = try await TestIdentityProvider.generate([("apple-1", "RS256")])
        let configure: (inout IdentityConfiguration) -> Void = {
            $0.google = nil
            $0.apple?.nonceRequired = false  // the tokens here have none; this test is about the other claims
        }
        try await withProviders(engine, apple: JWKSEndpoint(provider.jwksJSON), configure: configure) { identity, _ in
            let now = Int64(identity.clock.now().timeIntervalSince1970)
            var wrongIssuer = identity.appleClaims(sub: "u")
            wrongIssuer.iss = "https://evil.example.com"
            var wrongAudience = identity.appleClaims(sub: "u")
            wrongAudience.aud = "com.someone.else"
            var expired = identity.appleClaims(sub: "u")
            expired.exp = now - 61
            var withinSkew = identity.appleClaims(sub: "u")
            withinSkew.exp = now - 30
            var future = identity.appleClaims(sub: "u")
            future.nbf = now + 600
            let tokens = try await provider.sign(
                [wrongIssuer, wrongAudience, expired, withinSkew, future],
                kid: "apple-1"
            )
            #expect(await status { try await identity.providerSignIn(.apple, tokens[0]) } == IdentityStatus.wrongIssuer)
            #expect(
                await status { try await identity.providerSignIn(.apple, tokens[1]) } == IdentityStatus.wrongAudience
            )
            #expect(
                await status { try await identity.providerSignIn(.apple, tokens[2]) } == IdentityStatus.tokenExpired
            )
            #expect(await status { try await identity.providerSignIn(.apple, tokens[3]) } == nil)
            #expect(
                await status { try await identity.providerSignIn(.apple, tokens[4]) } == IdentityStatus.tokenNotYetValid
            )

            let parts = tokens[3].split(separator: ".").map(String.init)
            let otherPayload = Base64URL.encode(
                Array(
                    #"{"iss":"https://appleid.apple.com","sub":"admin","aud":"com.example.app","exp":9999999999}"#.utf8
                )
            )
            #expect(
                await status {
                    try await identity.providerSignIn(.apple, parts[0] + "." + otherPayload + "." + parts[2])
                }
                    == IdentityStatus.invalidToken
            )
            let none =
                Base64URL.encode(Array(#"{"alg":"none","kid":"apple-1"}"#.utf8)) + "." + parts[1] + "." + parts[2]
            #expect(
                await status { try await identity.providerSignIn(.apple, none) } == IdentityStatus.unsupportedAlgorithm
            )
            // An EdDSA token (the algorithm of Foyer's own tokens) is never a provider token.
            let edDSA = try JWTSigner(privateKey: Ed25519PrivateKey(), keyID: "apple-1").sign(
                claims: identity.appleClaims(sub: "u")
            )
            #expect(
                await status { try await identity.providerSignIn(.apple, edDSA) } == IdentityStatus.unsupportedAlgorithm
            )
            // A token whose header claims ES256 for the RSA key.
            let confused = try await provider.sign(
                identity.appleClaims(sub: "u"),
                kid: "apple-1",
                header: ["alg": "ES256"]
            )
            #expect(await status { try await identity.providerSignIn(.apple, confused) } == IdentityStatus.invalidToken)
            #expect(
                await status { try await identity.providerSignIn(.google, tokens[3]) }
                    == IdentityStatus.providerNotConfigured
            )
        }
    }

    @Test(
        "Google ES256: aliases of the issuer find the same account; email trust follows Google's rules; the same email at Apple and Google never merges",
        arguments: TestEngine.allCases
    )
    func googleAndEmails(engine: TestEngine) async throws {
        let apple = try await TestIdentityProvider.generate([("apple-1", "RS256")])
        let google = try await TestIdentityProvider.generate([("google-1", "ES256")])
        try await withProviders(engine, apple: JWKSEndpoint(apple.jwksJSON), google: JWKSEndpoint(google.jwksJSON)) {
            identity,
            _ in
            var alias = identity.googleClaims(sub: "g-1", email: "same@gmail.com", verified: true)
            alias.iss = "accounts.google.com"
            let googleTokens = try await google.sign(
                [
                    identity.googleClaims(sub: "g-1", email: "same@gmail.com", verified: true), alias,
                    identity.googleClaims(sub: "g-2", email: "x@company.com", verified: true),
                    identity.googleClaims(sub: "g-3", email: "y@company.com", verified: true, hd: "company.com"),
                    identity.googleClaims(sub: "g-4", email: "z@company.com", verified: false, hd: "company.com"),
                ],
                kid: "google-1"
            )
            let first = try await identity.providerSignIn(.google, googleTokens[0])
            #expect(try await identity.providerSignIn(.google, googleTokens[1]).uid == first.uid)
            var trust: [Bool] = []
            for token in googleTokens.dropFirst(2) {
                let session = try await identity.providerSignIn(.google, token)
                let user = try await identity.call(IdentityMethods.getUser, IdentityUserRequest(uid: session.uid))
                trust.append(user.providers[0].emailTrusted)
            }
            #expect(trust == [false, true, false])
            let gmail = try await identity.call(IdentityMethods.getUser, IdentityUserRequest(uid: first.uid))
            #expect(gmail.providers[0].emailTrusted && gmail.providers[0].provider == .google)

            // Apple says the same (verified) email: still a different account.
            let nonce = TestNonce()
            let appleToken = try await apple.sign(
                identity.appleClaims(sub: "a-1", nonce: nonce.hashed, email: "same@gmail.com"),
                kid: "apple-1"
            )
            let appleSession = try await identity.providerSignIn(.apple, appleToken, rawNonce: nonce.raw)
            #expect(appleSession.uid != first.uid)
        }
    }

    @Test(
        "Deleting an account then signing in again with the same sub makes a clean new account",
        arguments: TestEngine.allCases
    )
    func deleteThenReRegister(engine: TestEngine) async throws {
        let provider = try await TestIdentityProvider.generate([("apple-1", "RS256")])
        try await withProviders(engine, apple: JWKSEndpoint(provider.jwksJSON)) { identity, _ in
            let nonces = [TestNonce(), TestNonce()]
            let tokens = try await provider.sign(
                nonces.map { identity.appleClaims(sub: "returning", nonce: $0.hashed) },
                kid: "apple-1"
            )
            let first = try await identity.providerSignIn(.apple, tokens[0], rawNonce: nonces[0].raw)
            _ = try await identity.call(
                IdentityMethods.beginDelete,
                BeginDeleteRequest(uid: first.uid, operationID: "del-1")
            )
            try await identity.call(
                IdentityMethods.finishDelete,
                FinishDeleteRequest(uid: first.uid, operationID: "del-1")
            )
            let second = try await identity.providerSignIn(.apple, tokens[1], rawNonce: nonces[1].raw)
            #expect(second.uid != first.uid && !second.isAnonymous)
        }
    }
}
