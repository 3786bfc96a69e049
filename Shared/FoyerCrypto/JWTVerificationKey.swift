/// A public key that verifies JWS signatures, tied to exactly one ``JWSAlgorithm``.
public enum JWTVerificationKey: Sendable, Equatable {
    /// An Ed25519 key; verifies `EdDSA`.
    case ed25519(Ed25519PublicKey)
    /// An RSA key; verifies `RS256`.
    case rsa(RSAPublicKey)
    /// A P-256 key; verifies `ES256`.
    case p256(P256PublicKey)

    /// The only algorithm this key verifies. A token whose `alg` differs is rejected before any signature check.
    public var algorithm: JWSAlgorithm {
        switch self {
        case .ed25519: .edDSA
        case .rsa: .rs256
        case .p256: .es256
        }
    }

    /// Returns whether `signature` is valid for `signingInput` under this key's algorithm.
    public func isValidSignature(
        _ signature: some Collection<UInt8>,
        for signingInput: some Collection<UInt8>
    ) -> Bool {
        switch self {
        case .ed25519(let key): key.isValidSignature(signature, for: signingInput)
        case .rsa(let key): key.isValidPKCS1v15SHA256Signature(signature, for: signingInput)
        case .p256(let key): key.isValidES256Signature(signature, for: signingInput)
        }
    }

    /// A key id that follows from the key alone: base64url of the first 16 bytes of the SHA-256 of its public
    /// material (the Ed25519 key; the uncompressed P-256 point 04 ‖ x ‖ y; the RSA modulus followed by the
    /// exponent). Identity names its signing keys so.
    public var derivedKeyID: String {
        let material: [UInt8] =
            switch self {
            case .ed25519(let key): key.rawRepresentation
            case .p256(let key): [0x04] + key.x + key.y
            case .rsa(let key): key.modulus + key.exponent
            }
        return Base64URL.encode(SHA256.hash(material).prefix(16))
    }

    /// The key as a public JWK, with `alg` and `use` set.
    public func jwk(keyID: String?) -> JWK {
        switch self {
        case .ed25519(let key): key.jwk(keyID: keyID)
        case .rsa(let key): key.jwk(keyID: keyID)
        case .p256(let key): key.jwk(keyID: keyID)
        }
    }
}
