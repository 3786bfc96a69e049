import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerRPC

/// What a verified Apple or Google ID token says.
struct ProviderIdentity: Sendable {
    var provider: IdentityProvider
    /// The provider's canonical issuer (the first of its allowlist): with `subject`, the identity's key.
    var issuer: String
    var subject: String
    /// The token's audience that is on the allowlist: the app's client id (Sign in with Apple's `client_id`).
    var audience: String
    var email: String?
    /// Whether the provider vouches for the email (informational; emails never join accounts).
    var emailTrusted: Bool
    /// What marks the token used (`identity_used_nonces`) until `expiresAt`, so it is accepted once: SHA-256 of its
    /// `nonce` if it has one (another token with the same nonce is refused too), else of its `jti`, else of its
    /// signed part (header and payload as sent; the signature is left out, since ECDSA signs the same content in
    /// many ways).
    var replayHash: [UInt8]
    /// Whether `replayHash` comes from a nonce.
    var hasNonce: Bool
    var expiresAt: Date
}

/// Verifies ID tokens of one provider: RS256 or ES256 signature with the provider's key named by `kid`, issuer
/// and audience on the allowlists, `exp`/`nbf`/`iat` with the configured skew, and the nonce rule
/// (`nonce == hex(sha256(rawNonce))`, present in both or in neither, and present if `nonceRequired`). There is
/// no way to skip any of it.
///
/// The caller spends ``ProviderIdentity/replayHash`` in the transaction that uses the token, so every token is
/// accepted once, with a nonce or without.
struct ProviderTokenVerifier: Sendable {
    let provider: IdentityProvider
    let settings: ProviderSettings
    let keys: ProviderKeyCache

    private struct Claims: Decodable {
        var iss: String?
        var sub: String?
        var aud: [String]?
        var exp: Double?
        var nbf: Double?
        var iat: Double?
        var jti: String?
        var nonce: String?
        var email: String?
        var emailVerified: Bool?
        var hd: String?

        private enum CodingKeys: String, CodingKey {
            case iss, sub, aud, exp, nbf, iat, jti, nonce, email, hd
            case emailVerified = "email_verified"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            iss = try container.decodeIfPresent(String.self, forKey: .iss)
            sub = try container.decodeIfPresent(String.self, forKey: .sub)
            if let single = try? container.decodeIfPresent(String.self, forKey: .aud) {
                aud = [single]
            } else {
                aud = try container.decodeIfPresent([String].self, forKey: .aud)
            }
            exp = try container.decodeIfPresent(Double.self, forKey: .exp)
            nbf = try container.decodeIfPresent(Double.self, forKey: .nbf)
            iat = try container.decodeIfPresent(Double.self, forKey: .iat)
            jti = try container.decodeIfPresent(String.self, forKey: .jti)
            nonce = try container.decodeIfPresent(String.self, forKey: .nonce)
            email = try container.decodeIfPresent(String.self, forKey: .email)
            hd = try container.decodeIfPresent(String.self, forKey: .hd)
            // Apple sends "true"/"false" strings as often as booleans.
            if let flag = try? container.decodeIfPresent(Bool.self, forKey: .emailVerified) {
                emailVerified = flag
            } else if let text = try? container.decodeIfPresent(String.self, forKey: .emailVerified) {
                emailVerified = text == "true"
            }
        }
    }

    func verify(_ idToken: String, rawNonce: String?, now: Date) async throws -> ProviderIdentity {
        let unverified: UnverifiedJWT
        do {
            unverified = try JWT.decode(idToken, maxLength: IdentityLimits.idTokenByteCountMax)
        } catch let error as FoyerCryptoError where error == .unsupportedAlgorithm {
            throw IdentityError.unsupportedAlgorithm("the ID token's alg is not accepted")
        } catch {
            throw IdentityError.invalidToken("the ID token is malformed")
        }
        guard unverified.algorithm == .rs256 || unverified.algorithm == .es256 else {
            throw IdentityError.unsupportedAlgorithm("ID tokens must be RS256 or ES256")
        }
        guard let keyID = unverified.keyID, keyID.utf8.count <= IdentityLimits.keyIDByteCountMax else {
            throw IdentityError.unknownKeyID("the ID token names no key")
        }
        let key = try await keys.key(id: keyID)
        let claims: Claims
        do {
            claims = try unverified.verify(with: key).claims(as: Claims.self)
        } catch {
            throw IdentityError.invalidToken("the ID token's signature or claims are invalid")
        }
        return try check(claims, rawNonce: rawNonce, signedPart: Self.signedPart(of: idToken), now: now)
    }

    /// `header.payload` of a compact JWS, as sent (what the signature covers).
    private static func signedPart(of idToken: String) -> Substring {
        idToken.lastIndex(of: ".").map { idToken[..<$0] } ?? Substring(idToken)
    }

    private func check(
        _ claims: Claims,
        rawNonce: String?,
        signedPart: Substring,
        now: Date
    ) throws -> ProviderIdentity {
        guard let issuer = claims.iss, settings.issuers.contains(issuer) else {
            throw IdentityError.wrongIssuer()
        }
        guard let audience = claims.aud?.first(where: settings.audiences.contains) else {
            throw IdentityError.wrongAudience()
        }
        let skew = settings.clockSkew.timeInterval
        let nowSeconds = now.timeIntervalSince1970
        guard let exp = claims.exp else { throw IdentityError.invalidToken("the ID token has no exp") }
        guard nowSeconds < exp + skew else { throw IdentityError.tokenExpired("the ID token has expired") }
        if let nbf = claims.nbf, nowSeconds < nbf - skew {
            throw IdentityError.tokenNotYetValid("the ID token is not valid yet")
        }
        if let iat = claims.iat, nowSeconds < iat - skew {
            throw IdentityError.tokenNotYetValid("the ID token was issued in the future")
        }
        guard let subject = claims.sub, !subject.isEmpty, subject.utf8.count <= IdentityLimits.subjectByteCountMax
        else { throw IdentityError.invalidToken("the ID token has no usable sub") }
        let nonceHash = try checkNonce(claims.nonce, rawNonce: rawNonce)
        return ProviderIdentity(
            provider: provider,
            issuer: settings.issuers[0],
            subject: subject,
            audience: audience,
            email: claims.email.flatMap { EmailAddress($0)?.value },
            emailTrusted: emailTrusted(claims),
            replayHash: nonceHash ?? replayHash(jti: claims.jti, signedPart: signedPart),
            hasNonce: nonceHash != nil,
            expiresAt: Date(timeIntervalSince1970: exp + skew)
        )
    }

    /// `nonce == hex(sha256(rawNonce))`, both present or both absent; returns what marks the nonce as used.
    private func checkNonce(_ nonce: String?, rawNonce: String?) throws -> [UInt8]? {
        switch (nonce, rawNonce) {
        case (nil, nil):
            guard !settings.nonceRequired else {
                throw IdentityError.nonceMismatch("a nonce is required")
            }
            return nil
        case (let nonce?, let rawNonce?):
            let expected = Identifiers.hex(SHA256.hash(Array(rawNonce.utf8)))
            guard ConstantTime.equals(Array(expected.utf8), Array(nonce.utf8)) else {
                throw IdentityError.nonceMismatch("the nonce does not match")
            }
            return SHA256.hash(Array(("\(provider):" + nonce).utf8))
        default:
            throw IdentityError.nonceMismatch("the nonce must be given in both the token and the request")
        }
    }

    /// The used-token mark of a token without a nonce: its `jti` if it has one, else its signed part. Each kind has
    /// its own prefix, which a nonce's mark (`provider:` and 64 hex digits) can never take.
    private func replayHash(jti: String?, signedPart: Substring) -> [UInt8] {
        if let jti, !jti.isEmpty {
            return SHA256.hash(Array("\(provider):jti:\(jti)".utf8))
        }
        return SHA256.hash(Array("\(provider):token:\(signedPart)".utf8))
    }

    /// Apple vouches for the email it sends when `email_verified` is true. Google is authoritative for an email
    /// that ends in `@gmail.com`, or that is verified and belongs to a Workspace domain (`hd` set).
    private func emailTrusted(_ claims: Claims) -> Bool {
        guard let email = claims.email.flatMap(EmailAddress.init) else { return false }
        switch provider {
        case .apple:
            return claims.emailVerified == true
        case .google:
            if email.domain == "gmail.com" { return claims.emailVerified != false }
            return claims.emailVerified == true && !(claims.hd ?? "").isEmpty
        }
    }
}
