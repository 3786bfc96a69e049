import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerRPC
import SQLKit

extension IdentityCore {
    /// `verifyAccessToken`: the checks, in order, each with its own status:
    ///
    /// 1. structure and `alg` (`invalid-token`; `unsupported-algorithm` for `none`, HMAC or a non-EdDSA `alg`),
    /// 2. `typ` must be `at+jwt` (`invalid-token`: another kind of JWT),
    /// 3. `kid` among the published keys, after a reload if due (`unknown-key-id`),
    /// 4. signature (`invalid-token`),
    /// 5. `iss` (`wrong-issuer`), `aud` (`wrong-audience`), `exp` (`token-expired`), `iat` (`token-not-yet-valid`),
    ///    each with the configured skew,
    /// 6. guest or member as required (`member-required`, `guest-required`),
    /// 7. the user exists and is active, the token is not older than the user's not-before, and its session is
    ///    live (`token-revoked`).
    func verifyAccessToken(_ request: VerifyAccessTokenRequest) async throws -> VerifiedAccessToken {
        let now = self.now
        let claims = try await verifiedClaims(request.accessToken, now: now)
        switch request.requirement {
        case .any: break
        case .member where claims.isAnonymous:
            throw RPCError(IdentityStatus.memberRequired, "a permanent account is required; this is a guest's token")
        case .guest where !claims.isAnonymous:
            throw RPCError(IdentityStatus.guestRequired, "a guest is required; this is a permanent account's token")
        case .member, .guest: break
        }
        try await database.withConnection { sql in
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
        }
        return VerifiedAccessToken(
            uid: claims.subject,
            isAnonymous: claims.isAnonymous,
            sessionID: claims.sessionID,
            expiresAtMilliseconds: UInt64(max(0, claims.expiresAt)) * 1000
        )
    }

    private func verifiedClaims(_ token: String, now: Date) async throws -> AccessTokenClaims {
        let unverified: UnverifiedJWT
        do {
            unverified = try JWT.decode(token, maxLength: IdentityLimits.accessTokenByteCountMax)
        } catch let error as FoyerCryptoError where error == .unsupportedAlgorithm {
            throw RPCError(IdentityStatus.unsupportedAlgorithm, "the token's alg is not accepted")
        } catch {
            throw IdentityError.invalidToken("the token is malformed")
        }
        guard unverified.algorithm == .edDSA else {
            throw RPCError(IdentityStatus.unsupportedAlgorithm, "access tokens are signed with EdDSA only")
        }
        guard unverified.header.type == AccessTokenClaims.type else {
            throw IdentityError.invalidToken("the token is not an access token (typ)")
        }
        guard let keyID = unverified.keyID, keyID.utf8.count <= IdentityLimits.keyIDByteCountMax else {
            throw RPCError(IdentityStatus.unknownKeyID, "the token names no key")
        }
        var key = keys.verificationKey(id: keyID, now: now)
        if key == nil, try await keys.reloadIfDue(database, now: now) {
            key = keys.verificationKey(id: keyID, now: now)
        }
        guard let key else { throw RPCError(IdentityStatus.unknownKeyID, "no published key has the token's kid") }
        let claims: AccessTokenClaims
        do {
            claims = try unverified.verify(with: key).claims(as: AccessTokenClaims.self)
        } catch {
            throw IdentityError.invalidToken("the token's signature or claims are invalid")
        }
        let skew = Int64(configuration.accessTokenClockSkew.timeInterval)
        guard claims.issuer == configuration.issuer else {
            throw RPCError(IdentityStatus.wrongIssuer, "the token was issued by someone else")
        }
        guard claims.audience.contains(configuration.audience) else {
            throw RPCError(IdentityStatus.wrongAudience, "the token is meant for another audience")
        }
        guard now.epochSeconds < claims.expiresAt + skew else { throw IdentityError.tokenExpired() }
        guard claims.issuedAt <= now.epochSeconds + skew else {
            throw RPCError(IdentityStatus.tokenNotYetValid, "the token was issued in the future")
        }
        return claims
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
