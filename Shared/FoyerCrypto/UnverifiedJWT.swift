/// A structurally valid compact JWS whose signature has not been checked yet.
///
/// Nothing in it can be trusted until one of the `verify(with:)` methods succeeds; the header is exposed so the
/// right key can be chosen (by ``keyID``), and the payload only for diagnostics.
public struct UnverifiedJWT: Sendable {
    /// The decoded protected header; its algorithm is on the allowlist.
    public let header: JWSHeader
    /// The protected header's JSON bytes as sent.
    public let headerJSON: [UInt8]
    /// The payload bytes (the claims JSON, for a JWT). Unauthenticated.
    public let payload: [UInt8]
    /// The ASCII bytes that were signed: the header and payload segments joined by `.`.
    public let signingInput: [UInt8]
    /// The decoded signature bytes.
    public let signature: [UInt8]

    /// The header's `alg`.
    public var algorithm: JWSAlgorithm { header.algorithm }
    /// The header's `kid`, if any.
    public var keyID: String? { header.keyID }

    init(header: JWSHeader, headerJSON: [UInt8], payload: [UInt8], signingInput: [UInt8], signature: [UInt8]) {
        self.header = header
        self.headerJSON = headerJSON
        self.payload = payload
        self.signingInput = signingInput
        self.signature = signature
    }

    /// Verifies the signature with `key`.
    ///
    /// The header's `alg` must equal the key's ``JWTVerificationKey/algorithm`` exactly, so a token can never
    /// choose how the key is used.
    ///
    /// - Throws: ``FoyerCryptoError/algorithmMismatch`` or ``FoyerCryptoError/signatureVerificationFailed``.
    public func verify(with key: JWTVerificationKey) throws -> VerifiedJWT {
        guard header.algorithm == key.algorithm else {
            throw FoyerCryptoError.algorithmMismatch(
                "the token says \(header.algorithm.rawValue) but the key is for \(key.algorithm.rawValue)"
            )
        }
        guard key.isValidSignature(signature, for: signingInput) else {
            throw FoyerCryptoError.signatureVerificationFailed(
                "the \(header.algorithm.rawValue) signature is invalid"
            )
        }
        return VerifiedJWT(header: header, payload: payload)
    }

    /// Verifies the signature with the key in `keySet` whose `kid` equals the header's `kid`.
    ///
    /// - Throws: ``FoyerCryptoError/unknownKeyID`` if the token has no `kid` or the set has no such key, the
    ///   errors of ``JWK/verificationKey()`` for an unusable key, and those of verifying with a single key.
    public func verify(with keySet: JWKSet) throws -> VerifiedJWT {
        guard let keyID else { throw FoyerCryptoError.unknownKeyID("the token has no kid") }
        return try verify(with: keySet.verificationKey(id: keyID))
    }
}
