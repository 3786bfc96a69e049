/// A compact JWS whose signature has been verified.
///
/// Only signature and algorithm have been checked: expiry, issuer, audience and any other claim checks are the
/// caller's to make on the decoded claims.
public struct VerifiedJWT: Sendable {
    /// The protected header.
    public let header: JWSHeader
    /// The authenticated payload bytes.
    public let payload: [UInt8]

    init(header: JWSHeader, payload: [UInt8]) {
        self.header = header
        self.payload = payload
    }

    /// Decodes the payload, which must be a JSON object with unique member names (RFC 7519 §4), into `type`.
    /// Dates are read as NumericDate (seconds since the epoch).
    ///
    /// - Throws: ``FoyerCryptoError/invalidClaims`` if the payload is not such an object or does not decode as
    ///   `Claims`.
    public func claims<Claims: Decodable>(as type: Claims.Type = Claims.self) throws -> Claims {
        guard JSONObjectScanner.isObjectWithUniqueMemberNames(payload) else {
            throw FoyerCryptoError.invalidClaims("the payload is not a JSON object with unique member names")
        }
        return try JOSEJSON.decode(
            type,
            from: payload,
            failure: .invalidClaims("the payload does not decode as \(type)")
        )
    }

    /// The registered claims (`iss`, `sub`, `aud`, `exp`, `nbf`, `iat`, `jti`) of the payload.
    ///
    /// - Throws: ``FoyerCryptoError/invalidClaims`` if the payload is not a JSON object or a registered claim
    ///   has the wrong type.
    public func registeredClaims() throws -> JWTClaims {
        try claims(as: JWTClaims.self)
    }
}
