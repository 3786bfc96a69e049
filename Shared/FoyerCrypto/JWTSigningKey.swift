/// A private key that signs JWS tokens, tied to exactly one ``JWSAlgorithm``: the signing side of
/// ``JWTVerificationKey``.
public enum JWTSigningKey: Sendable {
    /// An Ed25519 key; signs `EdDSA`.
    case ed25519(Ed25519PrivateKey)
    /// A P-256 key; signs `ES256`.
    case p256(P256PrivateKey)
    /// An RSA key; signs `RS256`.
    case rsa(RSAPrivateKey)

    /// Generates a new key for `algorithm` (an RSA key has ``RSAPrivateKey/generatedModulusBitCount`` bits).
    public init(generatingFor algorithm: JWSAlgorithm) {
        switch algorithm {
        case .edDSA: self = .ed25519(Ed25519PrivateKey())
        case .es256: self = .p256(P256PrivateKey())
        case .rs256: self = .rsa(RSAPrivateKey())
        }
    }

    /// Restores a key of `algorithm` from what ``storedRepresentation`` wrote.
    ///
    /// - Throws: ``FoyerCryptoError/invalidKey`` if the bytes are not a key of that algorithm.
    public init(algorithm: JWSAlgorithm, storedRepresentation: [UInt8]) throws {
        switch algorithm {
        case .edDSA: self = .ed25519(try Ed25519PrivateKey(rawRepresentation: storedRepresentation))
        case .es256: self = .p256(try P256PrivateKey(derRepresentation: storedRepresentation))
        case .rs256: self = .rsa(try RSAPrivateKey(derRepresentation: storedRepresentation))
        }
    }

    /// The only algorithm this key signs with.
    public var algorithm: JWSAlgorithm { verificationKey.algorithm }

    /// The key that verifies this key's signatures.
    public var verificationKey: JWTVerificationKey {
        switch self {
        case .ed25519(let key): .ed25519(key.publicKey)
        case .p256(let key): .p256(key.publicKey)
        case .rsa(let key): .rsa(key.publicKey)
        }
    }

    /// The key's bytes for storage: the 32-byte seed for Ed25519, SEC 1 DER for P-256, PKCS #1 DER for RSA. Treat
    /// the result as secret.
    public var storedRepresentation: [UInt8] {
        get throws {
            switch self {
            case .ed25519(let key): key.rawRepresentation
            case .p256(let key): try key.derRepresentation
            case .rsa(let key): try key.derRepresentation
            }
        }
    }

    /// The JWS signature of `message` under ``algorithm`` (for ES256 the 64-byte r ‖ s form).
    ///
    /// - Throws: ``FoyerCryptoError/libraryFailure`` only if libcrypto fails.
    public func signature(for message: some Collection<UInt8>) throws -> [UInt8] {
        switch self {
        case .ed25519(let key): try key.signature(for: message)
        case .p256(let key): try key.es256Signature(for: message)
        case .rsa(let key): try key.rs256Signature(for: message)
        }
    }
}
