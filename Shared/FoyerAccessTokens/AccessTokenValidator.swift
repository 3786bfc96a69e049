public import Foundation
import FoyerAPI
public import FoyerCrypto
public import FoyerRPC

/// The checks an access token must pass that need nothing but the token, the signing keys and the clock,
/// shared by identity (which adds the account and session checks) and the gateway (which verifies locally so a
/// data call costs no round trip to identity).
///
/// In order, each with its own status: structure and `alg` (`invalid-token`; `unsupported-algorithm` for `none`,
/// HMAC or anything but EdDSA, ES256 and RS256); `typ` must be `at+jwt`; `kid` among the keys (`unknown-key-id`);
/// `alg` the algorithm of the key the `kid` names, and the signature (`invalid-token`: a token that names an RS256
/// or ES256 key but says another `alg` is refused before any signature check, so no key is used with an algorithm
/// it was not made for); `iss` (`wrong-issuer`), `aud` (`wrong-audience`), `exp` (`token-expired`), `iat`
/// (`token-not-yet-valid`), each with `clockSkew`.
public struct AccessTokenValidator: Sendable {
    public var issuer: String
    public var audience: String
    public var clockSkew: Duration

    public init(issuer: String, audience: String, clockSkew: Duration = .seconds(60)) {
        self.issuer = issuer
        self.audience = audience
        self.clockSkew = clockSkew
    }

    /// Decodes `token` and checks its header, so the caller can find the key it names.
    public func decode(_ token: String) throws(RPCError) -> (token: UnverifiedJWT, keyID: String) {
        let unverified: UnverifiedJWT
        do {
            unverified = try JWT.decode(token, maxLength: IdentityLimits.accessTokenByteCountMax)
        } catch let error as FoyerCryptoError where error == .unsupportedAlgorithm {
            throw RPCError(IdentityStatus.unsupportedAlgorithm, "the token's alg is not accepted")
        } catch {
            throw RPCError(IdentityStatus.invalidToken, "the token is malformed")
        }
        guard unverified.header.type == AccessTokenClaims.type else {
            throw RPCError(IdentityStatus.invalidToken, "the token is not an access token (typ)")
        }
        guard let keyID = unverified.keyID, keyID.utf8.count <= IdentityLimits.keyIDByteCountMax else {
            throw RPCError(IdentityStatus.unknownKeyID, "the token names no key")
        }
        return (unverified, keyID)
    }

    /// Checks the signature with `key` (the key the token names; `nil` if none is known) and the claims.
    public func validate(
        _ token: UnverifiedJWT,
        key: JWTVerificationKey?,
        now: Date
    ) throws(RPCError) -> AccessTokenClaims {
        guard let key else { throw RPCError(IdentityStatus.unknownKeyID, "no published key has the token's kid") }
        let claims: AccessTokenClaims
        do {
            claims = try token.verify(with: key).claims(as: AccessTokenClaims.self)
        } catch let error as FoyerCryptoError where error == .algorithmMismatch {
            throw RPCError(IdentityStatus.invalidToken, "the token's alg is not the algorithm of the key it names")
        } catch {
            throw RPCError(IdentityStatus.invalidToken, "the token's signature or claims are invalid")
        }
        let skew = Int64(clockSkew.components.seconds)
        let nowSeconds = Int64(now.timeIntervalSince1970.rounded(.down))
        guard claims.issuer == issuer else {
            throw RPCError(IdentityStatus.wrongIssuer, "the token was issued by someone else")
        }
        guard claims.audience.contains(audience) else {
            throw RPCError(IdentityStatus.wrongAudience, "the token is meant for another audience")
        }
        guard nowSeconds < claims.expiresAt + skew else {
            throw RPCError(IdentityStatus.tokenExpired, "the access token has expired")
        }
        guard claims.issuedAt <= nowSeconds + skew else {
            throw RPCError(IdentityStatus.tokenNotYetValid, "the token was issued in the future")
        }
        return claims
    }
}
