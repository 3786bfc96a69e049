internal import CFoyerLibcrypto

/// An RSA verification key for RS256 (RSASSA-PKCS1-v1_5 with SHA-256, RFC 7518 §3.3).
public struct RSAPublicKey: Sendable, Equatable {
    /// The smallest accepted modulus, in bits (RFC 7518 §3.3 requires at least 2048).
    public static let minimumModulusBitCount = 2048
    /// The largest accepted modulus, in bits; bounds the cost of verification for keys fetched from elsewhere.
    public static let maximumModulusBitCount = 8192
    /// The largest accepted public exponent, in bytes (64 bits, the limit libcrypto enforces for large moduli).
    public static let maximumExponentByteCount = 8

    private let key: EVPKey

    /// The modulus n, big-endian, without leading zero bytes.
    public let modulus: [UInt8]
    /// The public exponent e, big-endian, without leading zero bytes.
    public let exponent: [UInt8]

    /// The size of the modulus in bits.
    public var modulusBitCount: Int { Self.bitCount(modulus) }

    /// Creates a key from its modulus and public exponent as unsigned big-endian integers, the form of a
    /// JWK's `n` and `e`. Leading zero bytes are ignored.
    ///
    /// - Throws: ``FoyerCryptoError/invalidKey`` if the modulus is under 2048 or over 8192 bits, or even, or
    ///   the exponent is not an odd number from 3 up to 64 bits.
    public init(modulus: [UInt8], exponent: [UInt8]) throws {
        let n = Array(modulus.drop { $0 == 0 })
        let e = Array(exponent.drop { $0 == 0 })
        let bits = Self.bitCount(n)
        guard bits >= Self.minimumModulusBitCount, bits <= Self.maximumModulusBitCount else {
            throw FoyerCryptoError.invalidKey(
                "an RSA modulus of \(bits) bits is outside "
                    + "\(Self.minimumModulusBitCount)...\(Self.maximumModulusBitCount)"
            )
        }
        guard let lastModulusByte = n.last, lastModulusByte & 1 == 1 else {
            throw FoyerCryptoError.invalidKey("an RSA modulus must be odd")
        }
        guard e.count <= Self.maximumExponentByteCount, let lastExponentByte = e.last, lastExponentByte & 1 == 1,
            e.count > 1 || lastExponentByte >= 3
        else {
            throw FoyerCryptoError.invalidKey("an RSA public exponent must be odd, at least 3 and at most 64 bits")
        }
        let builder = try EVPKeyBuilder()
        try builder.addInteger(cfoyer_param_rsa_n(), bigEndian: n)
        try builder.addInteger(cfoyer_param_rsa_e(), bigEndian: e)
        key = try builder.makePublicKey(keyType: cfoyer_key_type_rsa())
        self.modulus = n
        self.exponent = e
    }

    /// Returns whether `signature` is a valid RS256 signature (RSASSA-PKCS1-v1_5, SHA-256) of `message`.
    /// The signature must be exactly as long as the modulus, as RFC 7518 §3.3 requires.
    public func isValidPKCS1v15SHA256Signature(
        _ signature: some Collection<UInt8>,
        for message: some Collection<UInt8>
    ) -> Bool {
        guard signature.count == modulus.count else { return false }
        return signature.withNonNullUnsafeBytes { signatureBytes in
            message.withNonNullUnsafeBytes { messageBytes in
                // PKCS#1 v1.5 is the default padding of an RSA EVP_PKEY, so no further context setup is needed.
                key.verify(signature: signatureBytes, message: messageBytes, digest: EVP_sha256())
            }
        }
    }

    /// The key as a public JWK (`kty` RSA) for `alg` RS256 and `use` sig.
    public func jwk(keyID: String?) -> JWK {
        JWK(
            kty: "RSA",
            kid: keyID,
            alg: JWSAlgorithm.rs256.rawValue,
            use: "sig",
            n: Base64URL.encode(modulus),
            e: Base64URL.encode(exponent)
        )
    }

    /// The bit length of a big-endian integer without leading zero bytes.
    private static func bitCount(_ bigEndian: [UInt8]) -> Int {
        guard let first = bigEndian.first else { return 0 }
        return (bigEndian.count - 1) * 8 + (UInt8.bitWidth - first.leadingZeroBitCount)
    }

    public static func == (lhs: RSAPublicKey, rhs: RSAPublicKey) -> Bool {
        lhs.modulus == rhs.modulus && lhs.exponent == rhs.exponent
    }
}
