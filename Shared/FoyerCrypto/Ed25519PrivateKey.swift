internal import CFoyerLibcrypto

/// An Ed25519 signing key (RFC 8032), held inside libcrypto.
///
/// The 32-byte seed lives in the `EVP_PKEY`; ``rawRepresentation`` copies it out only when asked, for storage.
public struct Ed25519PrivateKey: Sendable {
    /// The size of the seed (the RFC 8032 "secret key") in bytes.
    public static let byteCount = 32

    private let key: EVPKey

    /// The matching verification key.
    public let publicKey: Ed25519PublicKey

    /// Generates a new key from ``SecureRandom``.
    public init() {
        var seed = SecureRandom.bytes(count: Self.byteCount)
        defer { seed.withUnsafeMutableBytes { bytes in OPENSSL_cleanse(bytes.baseAddress, bytes.count) } }
        do {
            try self.init(rawRepresentation: seed)
        } catch {
            // A fresh 32-byte seed is always a valid key; failing here means libcrypto cannot allocate.
            preconditionFailure("could not create an Ed25519 key from a fresh seed: \(error)")
        }
    }

    /// Restores a key from its 32-byte seed.
    ///
    /// - Throws: ``FoyerCryptoError/invalidKey`` if `rawRepresentation` is not exactly 32 bytes.
    public init(rawRepresentation: [UInt8]) throws {
        guard rawRepresentation.count == Self.byteCount else {
            throw FoyerCryptoError.invalidKey(
                "an Ed25519 private key is \(Self.byteCount) bytes, got \(rawRepresentation.count)"
            )
        }
        let pointer = rawRepresentation.withNonNullUnsafeBytes { seed in
            EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, seed.bytePointer, seed.count)
        }
        guard let pointer else { throw LibcryptoErrorQueue.failure("EVP_PKEY_new_raw_private_key") }
        key = EVPKey(takingOwnershipOf: pointer)
        publicKey = try Ed25519PublicKey(rawRepresentation: Self.rawPublicKey(of: key))
    }

    /// The 32-byte seed. Treat the result as secret.
    public var rawRepresentation: [UInt8] {
        var length = Self.byteCount
        let seed = [UInt8](unsafeUninitializedCapacity: Self.byteCount) { buffer, initializedCount in
            let status = EVP_PKEY_get_raw_private_key(key.pointer, buffer.baseAddress, &length)
            // The key was created from a raw Ed25519 seed, so exporting it cannot fail for any input.
            guard status == 1, length == Self.byteCount else {
                preconditionFailure("EVP_PKEY_get_raw_private_key failed: \(LibcryptoErrorQueue.drain())")
            }
            initializedCount = Self.byteCount
        }
        return seed
    }

    /// Signs `message` with pure Ed25519 (no pre-hashing); the 64-byte signature is deterministic.
    ///
    /// - Throws: ``FoyerCryptoError/libraryFailure`` only if libcrypto cannot allocate.
    public func signature(for message: some Collection<UInt8>) throws -> [UInt8] {
        try message.withNonNullUnsafeBytes { bytes in
            try key.sign(bytes, digest: nil)
        }
    }

    private static func rawPublicKey(of key: EVPKey) throws -> [UInt8] {
        var publicKey = [UInt8](repeating: 0, count: Ed25519PublicKey.byteCount)
        var length = publicKey.count
        guard EVP_PKEY_get_raw_public_key(key.pointer, &publicKey, &length) == 1,
            length == Ed25519PublicKey.byteCount
        else {
            throw LibcryptoErrorQueue.failure("EVP_PKEY_get_raw_public_key")
        }
        return publicKey
    }
}
