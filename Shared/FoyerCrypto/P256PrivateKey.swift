internal import CFoyerLibcrypto

/// A NIST P-256 signing key for ES256 (ECDSA with SHA-256, RFC 7518 §3.4), held inside libcrypto.
///
/// Signatures are returned in the fixed-width form JWS requires (r ‖ s, 32 bytes each), not the DER form
/// libcrypto produces. The key is stored as its SEC 1 `ECPrivateKey` DER (``derRepresentation``).
public struct P256PrivateKey: Sendable {
    private let key: EVPKey

    /// The matching verification key.
    public let publicKey: P256PublicKey

    /// Generates a new key with libcrypto's random generator.
    public init() {
        do {
            let key = try EVPKey.generate(keyType: cfoyer_key_type_ec()) { context in
                EVP_PKEY_CTX_set_group_name(context, cfoyer_group_p256()) == 1
            }
            try self.init(key)
        } catch {
            // Generating a P-256 key fails only if libcrypto cannot allocate or has no EC support at all.
            preconditionFailure("could not generate a P-256 key: \(error)")
        }
    }

    /// Restores a key from its SEC 1 `ECPrivateKey` DER, as ``derRepresentation`` wrote it.
    ///
    /// - Throws: ``FoyerCryptoError/invalidKey`` if the bytes are not exactly one EC private key on P-256.
    public init(derRepresentation: [UInt8]) throws {
        try self.init(try EVPKey.privateKey(type: cfoyer_pkey_ec(), der: derRepresentation))
    }

    private init(_ key: EVPKey) throws {
        let point = try key.octetStringParameter(
            cfoyer_param_public_key(),
            capacity: 1 + 2 * P256PublicKey.coordinateByteCount
        )
        let coordinates = P256PublicKey.coordinateByteCount
        // Anything but an uncompressed P-256 point (0x04 ‖ x ‖ y) means another curve or another encoding.
        guard point.count == 1 + 2 * coordinates, point.first == 0x04, key.bitCount == 256 else {
            throw FoyerCryptoError.invalidKey("the EC key is not a P-256 key")
        }
        self.key = key
        publicKey = try P256PublicKey(x: Array(point[1...coordinates]), y: Array(point[(1 + coordinates)...]))
    }

    /// The SEC 1 `ECPrivateKey` DER of the key (with its curve and public point). Treat the result as secret.
    public var derRepresentation: [UInt8] {
        get throws { try key.privateKeyDER() }
    }

    /// Signs `message` with ECDSA over SHA-256 and returns the 64-byte JWS form r ‖ s. ECDSA signatures are
    /// randomised, so two signatures of the same message differ.
    ///
    /// - Throws: ``FoyerCryptoError/libraryFailure`` only if libcrypto fails.
    public func es256Signature(for message: some Collection<UInt8>) throws -> [UInt8] {
        let der = try message.withNonNullUnsafeBytes { bytes in try key.sign(bytes, digest: EVP_sha256()) }
        return try Self.rawSignature(der: der)
    }

    /// Converts libcrypto's DER `ECDSA-Sig-Value` to r ‖ s, each left-padded with zeros to 32 bytes.
    private static func rawSignature(der: [UInt8]) throws -> [UInt8] {
        let signature: OpaquePointer? = der.withNonNullUnsafeBytes { bytes in
            var cursor: UnsafePointer<UInt8>? = bytes.bytePointer
            return d2i_ECDSA_SIG(nil, &cursor, bytes.count)
        }
        guard let signature else { throw LibcryptoErrorQueue.failure("d2i_ECDSA_SIG") }
        defer { ECDSA_SIG_free(signature) }
        let width = P256PublicKey.coordinateByteCount
        var raw = [UInt8](repeating: 0, count: 2 * width)
        let written = raw.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return false }
            return BN_bn2binpad(ECDSA_SIG_get0_r(signature), base, Int32(width)) == width
                && BN_bn2binpad(ECDSA_SIG_get0_s(signature), base + width, Int32(width)) == width
        }
        guard written else { throw LibcryptoErrorQueue.failure("BN_bn2binpad") }
        return raw
    }
}
