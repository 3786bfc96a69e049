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

/// Claims for forged tokens (signed with identity's own key read from its database, so only the claim under test
/// is wrong).
private struct ForgedClaims: Encodable {
    var sub: String
    var is_anonymous: Bool
    var sid: String
    var iss = "http://127.0.0.1:7480"
    var aud = "foyer-app"
    var iat: Int64
    var exp: Int64
}

@Suite("Access-token verification")
struct AccessTokenTests {
    /// identity's current signing key, from its database.
    private func signingKey(_ identity: IdentityHarness) async throws -> (String, JWTSigningKey) {
        try await identity.database.withConnection { sql in
            let row = try await sql.raw(
                "SELECT kid, algorithm, private_key FROM identity_signing_keys WHERE retired_at IS NULL"
            ).first()!
            let algorithm = try #require(JWSAlgorithm(rawValue: row.decode(column: "algorithm", as: String.self)))
            return (
                try row.decode(column: "kid", as: String.self),
                try JWTSigningKey(algorithm: algorithm, storedRepresentation: row.decodeBytes(column: "private_key"))
            )
        }
    }

    private func verify(
        _ identity: IdentityHarness,
        _ token: String,
        _ requirement: TokenRequirement = .any
    )
        async -> RPCStatus?
    {
        await status {
            try await identity.call(
                IdentityMethods.verifyAccessToken,
                VerifyAccessTokenRequest(accessToken: token, requirement: requirement)
            )
        }
    }

    @Test(
        "Expired, tampered, wrong-audience, wrong-issuer, alg none, HMAC, unknown-kid, wrong-typ and future tokens each get their own status",
        arguments: TestEngine.allCases
    )
    func badTokens(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let guest = try await identity.newGuest()
            let (keyID, key) = try await signingKey(identity)
            let signer = JWTSigner(signingKey: key, keyID: keyID, type: "at+jwt")
            let now = Int64(identity.clock.now().timeIntervalSince1970)
            let good = ForgedClaims(sub: guest.uid, is_anonymous: true, sid: guest.sessionID, iat: now, exp: now + 900)
            #expect(await verify(identity, try signer.sign(claims: good)) == nil)

            var claims = good
            claims.aud = "someone-else"
            #expect(await verify(identity, try signer.sign(claims: claims)) == IdentityStatus.wrongAudience)
            claims = good
            claims.iss = "not-foyer"
            #expect(await verify(identity, try signer.sign(claims: claims)) == IdentityStatus.wrongIssuer)
            claims = good
            claims.iat = now + 3600
            claims.exp = now + 4500
            #expect(await verify(identity, try signer.sign(claims: claims)) == IdentityStatus.tokenNotYetValid)

            let parts = guest.accessToken.split(separator: ".").map(String.init)
            var payload = try JSONSerialization.jsonObject(with: Data(Base64URL.decode(parts[1]))) as! [String: Any]
            payload["is_anonymous"] = false
            let tampered =
                parts[0] + "." + Base64URL.encode(try JSONSerialization.data(withJSONObject: payload)) + "." + parts[2]
            #expect(await verify(identity, tampered) == IdentityStatus.invalidToken)

            let none = Base64URL.encode(Array(#"{"alg":"none","typ":"at+jwt"}"#.utf8)) + "." + parts[1] + "."
            #expect(await verify(identity, none) == IdentityStatus.unsupportedAlgorithm)  // the unsecured JWS form
            let noneSigned =
                Base64URL.encode(Array(#"{"alg":"none","typ":"at+jwt"}"#.utf8)) + "." + parts[1] + "." + parts[2]
            #expect(await verify(identity, noneSigned) == IdentityStatus.unsupportedAlgorithm)
            // HS256 keyed with what a verifier that trusted `alg` would use as the secret: the published key set.
            let publishedKeys = try await identity.call(IdentityMethods.getJWKS, Empty()).json
            let hmac =
                Base64URL.encode(Array(#"{"alg":"HS256","kid":"\#(keyID)","typ":"at+jwt"}"#.utf8)) + "."
                + parts[1] + "."
                + Base64URL.encode(HMACSHA256.authenticationCode(key: publishedKeys, message: Array(parts[1].utf8)))
            #expect(await verify(identity, hmac) == IdentityStatus.unsupportedAlgorithm)
            // The key's signature under another asymmetric alg (algorithm confusion) is refused unchecked.
            for other in JWSAlgorithm.allCases where other != key.algorithm {
                let header = #"{"alg":"\#(other.rawValue)","kid":"\#(keyID)","typ":"at+jwt"}"#
                let swapped = Base64URL.encode(Array(header.utf8)) + "." + parts[1] + "." + parts[2]
                #expect(await verify(identity, swapped) == IdentityStatus.invalidToken)
            }

            let stranger = JWTSigner(privateKey: Ed25519PrivateKey(), keyID: "not-a-foyer-key", type: "at+jwt")
            #expect(await verify(identity, try stranger.sign(claims: good)) == IdentityStatus.unknownKeyID)
            let withoutKeyID = JWTSigner(signingKey: key, keyID: nil, type: "at+jwt")
            #expect(await verify(identity, try withoutKeyID.sign(claims: good)) == IdentityStatus.unknownKeyID)
            let idTokenType = JWTSigner(signingKey: key, keyID: keyID, type: "JWT")
            #expect(await verify(identity, try idTokenType.sign(claims: good)) == IdentityStatus.invalidToken)

            identity.clock.advance(by: .seconds(15 * 60 + 61))
            #expect(await verify(identity, guest.accessToken) == IdentityStatus.tokenExpired)
        }
    }

    @Test(
        "A guest's token is refused where a member is required, and a member's where a guest is",
        arguments: TestEngine.allCases
    )
    func guestMemberConfusion(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let guest = try await identity.newGuest()
            #expect(await verify(identity, guest.accessToken, .member) == IdentityStatus.memberRequired)
            #expect(await verify(identity, guest.accessToken, .guest) == nil)
            let member = try await identity.call(
                IdentityMethods.linkPassword,
                LinkPasswordRequest(uid: guest.uid, email: "ada@example.com", password: "analytical engine")
            ).linked()
            #expect(member.uid == guest.uid && !member.isAnonymous)
            #expect(try decodeClaims(member.accessToken).is_anonymous == false)
            #expect(await verify(identity, member.accessToken, .member) == nil)
            #expect(await verify(identity, member.accessToken, .guest) == IdentityStatus.guestRequired)
            // The guest session's next refresh carries the account's new kind.
            let refreshed = try await identity.call(
                IdentityMethods.refreshSession,
                RefreshSessionRequest(refreshToken: guest.refreshToken)
            )
            let refreshedClaims = try decodeClaims(refreshed.accessToken)
            #expect(!refreshed.isAnonymous && !refreshedClaims.is_anonymous)
        }
    }

    @Test(
        "Revoking all sessions moves the user's not-before: older access tokens fail, newer ones work",
        arguments: TestEngine.allCases
    )
    func notBefore(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let first = try await identity.newGuest()
            identity.clock.advance(by: .seconds(5))
            try await identity.call(IdentityMethods.revokeAllSessions, IdentityUserRequest(uid: first.uid))
            #expect(await verify(identity, first.accessToken) == IdentityStatus.tokenRevoked)
            #expect(
                await status {
                    try await identity.call(
                        IdentityMethods.refreshSession,
                        RefreshSessionRequest(refreshToken: first.refreshToken)
                    )
                } == IdentityStatus.tokenRevoked
            )
            // A token forged with identity's key for the revoked session but stamped after the not-before still
            // fails: its session is revoked.
            let (keyID, key) = try await signingKey(identity)
            let now = Int64(identity.clock.now().timeIntervalSince1970)
            let late = try JWTSigner(signingKey: key, keyID: keyID, type: "at+jwt").sign(
                claims: ForgedClaims(
                    sub: first.uid,
                    is_anonymous: true,
                    sid: first.sessionID,
                    iat: now + 1,
                    exp: now + 900
                )
            )
            identity.clock.advance(by: .seconds(2))
            #expect(await verify(identity, late) == IdentityStatus.tokenRevoked)
            #expect(
                await identity.status(IdentityMethods.revokeAllSessions, IdentityUserRequest(uid: "nobody"))
                    == IdentityStatus.userNotFound
            )
        }
    }

    @Test("Revoking one session ends that session only", arguments: TestEngine.allCases)
    func revokeOneSession(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            let guest = try await identity.newGuest()
            _ = try await identity.call(
                IdentityMethods.linkPassword,
                LinkPasswordRequest(uid: guest.uid, email: "sam@example.com", password: "a long passphrase")
            ).linked()
            let other = try await identity.call(
                IdentityMethods.signInWithPassword,
                PasswordSignInRequest(email: "sam@example.com", password: "a long passphrase")
            )
            try await identity.call(
                IdentityMethods.revokeSession,
                RevokeSessionRequest(uid: guest.uid, sessionID: guest.sessionID)
            )
            #expect(await verify(identity, guest.accessToken) == IdentityStatus.tokenRevoked)
            #expect(await verify(identity, other.accessToken) == nil)
            #expect(
                await identity.status(
                    IdentityMethods.revokeSession,
                    RevokeSessionRequest(uid: "someone", sessionID: other.sessionID)
                ) == .notFound
            )
            #expect(await verify(identity, other.accessToken) == nil)
        }
    }
}
