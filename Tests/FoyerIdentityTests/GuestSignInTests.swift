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

@Suite("Guest sign-in")
struct GuestSignInTests {
    @Test(
        "A guest gets a printable 128-bit uid, an ES256 access token with the documented claims, and a 256-bit refresh token stored only hashed",
        arguments: TestEngine.allCases
    )
    func guestSignIn(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let tokens = try await identity.newGuest()
            #expect(tokens.uid.count == 32 && tokens.uid.allSatisfy(\.isHexDigit))
            #expect(tokens.isAnonymous)

            let jwks = try JWKSet(json: try await identity.call(IdentityMethods.getJWKS, Empty()).json)
            let verified = try JWTVerifier(keySet: jwks).verify(tokens.accessToken)
            #expect(verified.header.algorithm == .es256)
            #expect(verified.header.type == "at+jwt")
            #expect(verified.header.keyID == jwks.keys.first?.kid)
            let claims = try decodeClaims(tokens.accessToken)
            #expect(claims.sub == tokens.uid && claims.is_anonymous && claims.sid == tokens.sessionID)
            #expect(claims.iss == "http://127.0.0.1:7480" && claims.aud == "foyer-app")
            #expect(claims.exp - claims.iat == 15 * 60)
            #expect(claims.iat == Int64(identity.clock.now().timeIntervalSince1970))
            #expect(tokens.accessTokenExpiresAtMilliseconds == UInt64(claims.exp) * 1000)

            // 256 bits from the CSPRNG (43 base64url characters), and only its SHA-256 in the database.
            let refresh = try Base64URL.decode(tokens.refreshToken)
            #expect(refresh.count == 32)
            let stored = try await identity.database.withConnection { sql in
                try await sql.raw("SELECT token_hash FROM identity_refresh_tokens").all()
                    .map { try $0.decodeBytes(column: "token_hash") }
            }
            #expect(stored == [SHA256.hash(refresh)])
            let second = try await identity.newGuest()
            #expect(second.uid != tokens.uid && second.refreshToken != tokens.refreshToken)

            let verifiedByService = try await identity.call(
                IdentityMethods.verifyAccessToken,
                VerifyAccessTokenRequest(accessToken: tokens.accessToken)
            )
            #expect(verifiedByService.uid == tokens.uid && verifiedByService.isAnonymous)
        }
    }

    @Test(
        "A new guest takes the uid the gateway proposes; a replayed key answers its own guest whatever uid is proposed",
        arguments: TestEngine.allCases
    )
    func proposedUID(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let key = randomKey()
            let proposed = String(repeating: "ab", count: 16)
            let first = try await identity.call(
                IdentityMethods.createGuest,
                CreateGuestRequest(idempotencyKey: key, uid: proposed)
            )
            #expect(first.uid == proposed && first.isAnonymous)
            let replay = try await identity.call(
                IdentityMethods.createGuest,
                CreateGuestRequest(idempotencyKey: key, uid: String(repeating: "cd", count: 16))
            )
            #expect(replay.uid == proposed)
            #expect(try await identity.count("identity_users") == 1)
            // Only the form identity makes is taken.
            var buffer = CreateGuestRequest(idempotencyKey: randomKey(), uid: "ABCD").encoded()
            #expect((try? CreateGuestRequest(from: &buffer)) == nil)
        }
    }

    @Test(
        "A retry with the same idempotency key returns the same guest, even when the calls race",
        arguments: TestEngine.allCases
    )
    func idempotentRetry(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let key = randomKey()
            let first = try await identity.call(IdentityMethods.createGuest, CreateGuestRequest(idempotencyKey: key))
            // The first response was "lost", or another client holds the same key: the retry gets the same guest
            // and a session of its own, beside the first, which stays live (GuestKeyTests has the cap).
            let retry = try await identity.call(IdentityMethods.createGuest, CreateGuestRequest(idempotencyKey: key))
            #expect(retry.uid == first.uid)
            #expect(retry.sessionID != first.sessionID)
            for session in [first, retry] {
                _ = try await identity.call(
                    IdentityMethods.refreshSession,
                    RefreshSessionRequest(refreshToken: session.refreshToken)
                )
            }
            #expect(try await identity.count("identity_users") == 1)

            // As many racing calls as one key may make sessions.
            let raced = randomKey()
            let uids = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<identity.configuration.guestKeySessionsMax {
                    group.addTask {
                        try await identity.call(IdentityMethods.createGuest, CreateGuestRequest(idempotencyKey: raced))
                            .uid
                    }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(uids.count == 1)
            #expect(try await identity.count("identity_users") == 2)

            // Past the window (10 minutes: a retry, not a credential) the key is forgotten and starts a new guest.
            identity.clock.advance(by: .seconds(601))
            let later = try await identity.call(IdentityMethods.createGuest, CreateGuestRequest(idempotencyKey: key))
            #expect(later.uid != first.uid)
        }
    }

    @Test(
        "The idempotency key of a guest that became permanent does not give its tokens out",
        arguments: [TestEngine.sqlite]
    )
    func keyOfPermanentAccount(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let key = randomKey()
            let guest = try await identity.call(IdentityMethods.createGuest, CreateGuestRequest(idempotencyKey: key))
            _ = try await identity.call(
                IdentityMethods.linkPassword,
                LinkPasswordRequest(uid: guest.uid, email: "kim@example.com", password: "correct horse battery")
            ).linked()
            #expect(
                await identity.status(IdentityMethods.createGuest, CreateGuestRequest(idempotencyKey: key))
                    == IdentityStatus.idempotencyKeyReused
            )
        }
    }
}
