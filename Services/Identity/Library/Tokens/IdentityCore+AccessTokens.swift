import Foundation
import FoyerAPI
import FoyerAccessTokens
import FoyerCrypto
import FoyerRPC
import SQLKit

extension IdentityCore {
    /// `verifyAccessToken`: the checks, in order, each with its own status:
    ///
    /// 1. structure and `alg` (`invalid-token`; `unsupported-algorithm` for `none`, HMAC or any `alg` but EdDSA,
    ///    ES256 and RS256; `invalid-token` at step 4 for an `alg` that is not the named key's),
    /// 2. `typ` must be `at+jwt` (`invalid-token`: another kind of JWT),
    /// 3. `kid` among the published keys, after a reload if due (`unknown-key-id`),
    /// 4. signature (`invalid-token`),
    /// 5. `iss` (`wrong-issuer`), `aud` (`wrong-audience`), `exp` (`token-expired`), `iat` (`token-not-yet-valid`),
    ///    each with the configured skew,
    /// 6. the user exists and is active, the token is not older than the user's not-before, and its session is
    ///    live (`token-revoked`),
    /// 7. guest or member as required (`member-required`, `guest-required`), and with `guestOrRecentSignIn`, for a
    ///    member, a session started within `recentSignInWindow` (`recent-sign-in-required`).
    ///
    /// Whether the user is a guest is read from the user's row, never from the token: a guest's token minted before
    /// it linked a credential still says `is_anonymous` until it expires, and must neither skip a member's step-up
    /// nor pass for a guest. The answer says what the row says.
    func verifyAccessToken(_ request: VerifyAccessTokenRequest) async throws -> VerifiedAccessToken {
        let now = self.now
        let claims = try await verifiedClaims(request.accessToken, now: now)
        let isGuest = try await database.withConnection { sql in
            guard let user = try await UserRecords.load(sql, uid: claims.subject), user.state == .active else {
                throw IdentityError.tokenRevoked("the account is gone or not active")
            }
            guard claims.issuedAt >= user.tokensNotBefore else {
                throw IdentityError.tokenRevoked("the token predates the user's not-before")
            }
            guard
                try await SessionRecords.isLive(
                    sql,
                    sessionID: claims.sessionID,
                    uid: claims.subject,
                    now: now,
                    idleTimeout: configuration.refreshIdleTimeout
                )
            else { throw IdentityError.tokenRevoked("the session was revoked or has expired") }
            switch request.requirement {
            case .any: break
            case .member where user.isAnonymous:
                throw IdentityError.memberRequired("a permanent account is required; this is a guest")
            case .guest where !user.isAnonymous:
                throw IdentityError.guestRequired("a guest is required; this is a permanent account")
            case .guestOrRecentSignIn where !user.isAnonymous:
                try await self.requireRecentSignIn(sql, uid: claims.subject, sessionID: claims.sessionID, now: now)
            case .member, .guest, .guestOrRecentSignIn: break
            }
            return user.isAnonymous
        }
        return VerifiedAccessToken(
            uid: claims.subject,
            isAnonymous: isGuest,
            sessionID: claims.sessionID,
            expiresAtMilliseconds: UInt64(max(0, claims.expiresAt)) * 1000
        )
    }

    func verifiedClaims(_ token: String, now: Date) async throws -> AccessTokenClaims {
        let validator = AccessTokenValidator(
            issuer: configuration.issuer,
            audience: configuration.audience,
            clockSkew: configuration.accessTokenClockSkew
        )
        let (unverified, keyID) = try validator.decode(token)
        var key = keys.verificationKey(id: keyID, now: now)
        if key == nil, try await keys.reloadIfDue(database, now: now) {
            key = keys.verificationKey(id: keyID, now: now)
        }
        return try validator.validate(unverified, key: key, now: now)
    }

    /// `getJWKS`.
    func jwks() throws -> JWKSResponse {
        JWKSResponse(json: try keys.jwks(now: now).jsonBytes())
    }

    /// `rotateSigningKey`.
    func rotateSigningKey() async throws -> SigningKeyRotated {
        let keyID = try await keys.rotate(database, now: now)
        logger.notice("signing key rotated", metadata: ["key.id": "\(keyID)"])
        return SigningKeyRotated(keyID: keyID)
    }
}
