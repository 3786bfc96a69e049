internal import CFoyerLibcrypto

/// An Ed25519 verification key (RFC 8032).
public struct Ed25519PublicKey: Sendable, Equatable {
    /// The size of an encoded public key in bytes.
    public static let byteCount = 32
    /// The size of a signature in bytes.
    public static let signatureByteCount = 64

    private let key: EVPKey

    /// The 32-byte encoded point.
    public let rawRepresentation: [UInt8]

    /// Loads a key from its 32-byte encoding.
    ///
    /// Any 32 bytes are accepted here; an encoding that is not a valid curve point never verifies a signature.
    ///
    /// - Throws: ``FoyerCryptoError/invalidKey`` if `rawRepresentation` is not exactly 32 bytes.
    public init(rawRepresentation: [UInt8]) throws {
        guard rawRepresentation.count == Self.byteCount else {
            throw FoyerCryptoError.invalidKey(
                "an Ed25519 public key is \(Self.byteCount) bytes, got \(rawRepresentation.count)"
            )
        }
        let pointer = rawRepresentation.withNonNullUnsafeBytes { bytes in
            EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, bytes.bytePointer, bytes.count)
        }
        guard let pointer else {
            throw FoyerCryptoError.invalidKey("libcrypto rejected the key (\(LibcryptoErrorQueue.drain()))")
        }
        key = EVPKey(takingOwnershipOf: pointer)
        self.rawRepresentation = rawRepresentation
    }

    /// Returns whether `signature` is a valid Ed25519 signature of `message` under this key.
    /// Signatures that are not exactly 64 bytes are rejected.
    public func isValidSignature(_ signature: some Collection<UInt8>, for message: some Collection<UInt8>) -> Bool {
        guard signature.count == Self.signatureByteCount else { return false }
        return signature.withNonNullUnsafeBytes { signatureBytes in
            message.withNonNullUnsafeBytes { messageBytes in
                key.verify(signature: signatureBytes, message: messageBytes, digest: nil)
            }
        }
    }

    /// The key as a public JWK (RFC 8037: `kty` OKP, `crv` Ed25519) for `alg` EdDSA and `use` sig.
    public func jwk(keyID: String?) -> JWK {
        JWK(
            kty: "OKP",
            kid: keyID,
            alg: JWSAlgorithm.edDSA.rawValue,
            use: "sig",
            crv: "Ed25519",
            x: Base64URL.encode(rawRepresentation)
        )
    }

    public static func == (lhs: Ed25519PublicKey, rhs: Ed25519PublicKey) -> Bool {
        lhs.rawRepresentation == rhs.rawRepresentation
    }
}
