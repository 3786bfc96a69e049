internal import CFoyerLibcrypto

/// A NIST P-256 (secp256r1) verification key for ES256 (ECDSA with SHA-256, RFC 7518 §3.4).
public struct P256PublicKey: Sendable, Equatable {
    /// The size of one affine coordinate, and of each of r and s in a raw signature, in bytes.
    public static let coordinateByteCount = 32
    /// The size of a JWS ES256 signature (r || s) in bytes.
    public static let rawSignatureByteCount = 64

    private let key: EVPKey

    /// The affine x coordinate, big-endian, 32 bytes.
    public let x: [UInt8]
    /// The affine y coordinate, big-endian, 32 bytes.
    public let y: [UInt8]

    /// Creates a key from its affine coordinates as 32-byte big-endian integers (a JWK's `x` and `y`).
    ///
    /// - Throws: ``FoyerCryptoError/invalidKey`` if a coordinate is not 32 bytes, is not reduced modulo the
    ///   field prime, or the point is not on the curve.
    public init(x: [UInt8], y: [UInt8]) throws {
        guard x.count == Self.coordinateByteCount, y.count == Self.coordinateByteCount else {
            throw FoyerCryptoError.invalidKey(
                "P-256 coordinates are \(Self.coordinateByteCount) bytes each, got \(x.count) and \(y.count)"
            )
        }
        let builder = try EVPKeyBuilder()
        try builder.addStaticUTF8String(cfoyer_param_group_name(), cfoyer_group_p256())
        // SEC 1 §2.3.3 uncompressed encoding: 0x04 || x || y. Decoding it rejects points off the curve.
        try builder.addOctetString(cfoyer_param_public_key(), [0x04] + x + y)
        let key = try builder.makePublicKey(keyType: cfoyer_key_type_ec())
        guard key.hasValidPublicKey() else {
            throw FoyerCryptoError.invalidKey("the point is not a valid P-256 public key")
        }
        self.key = key
        self.x = x
        self.y = y
    }

    /// Returns whether `rawSignature` (the JWS form: r || s, 32 bytes each) is a valid ES256 signature of
    /// `message`. Any length other than 64 bytes is rejected.
    public func isValidES256Signature(
        _ rawSignature: some Collection<UInt8>,
        for message: some Collection<UInt8>
    ) -> Bool {
        let raw = Array(rawSignature)
        guard raw.count == Self.rawSignatureByteCount,
            let der = Self.derSignature(r: raw[..<Self.coordinateByteCount], s: raw[Self.coordinateByteCount...])
        else {
            return false
        }
        return der.withNonNullUnsafeBytes { signatureBytes in
            message.withNonNullUnsafeBytes { messageBytes in
                key.verify(signature: signatureBytes, message: messageBytes, digest: EVP_sha256())
            }
        }
    }

    /// The key as a public JWK (`kty` EC, `crv` P-256) for `alg` ES256 and `use` sig.
    public func jwk(keyID: String?) -> JWK {
        JWK(
            kty: "EC",
            kid: keyID,
            alg: JWSAlgorithm.es256.rawValue,
            use: "sig",
            crv: "P-256",
            x: Base64URL.encode(x),
            y: Base64URL.encode(y)
        )
    }

    public static func == (lhs: P256PublicKey, rhs: P256PublicKey) -> Bool {
        lhs.x == rhs.x && lhs.y == rhs.y
    }
}

// MARK: - Raw to DER signature conversion

extension P256PublicKey {
    /// Upper bound on the DER form for P-256: 2 + 2 × (2 + 33) bytes; anything larger indicates a bug.
    private static let maximumDERSignatureByteCount = 72

    /// Converts a signature from the fixed-width form JWS uses (r || s) to the DER `ECDSA-Sig-Value` (a
    /// SEQUENCE of two INTEGERs) libcrypto verifies. Returns nil if libcrypto cannot allocate or the result is
    /// unexpectedly large.
    private static func derSignature(r: ArraySlice<UInt8>, s: ArraySlice<UInt8>) -> [UInt8]? {
        guard let signature = ECDSA_SIG_new() else {
            LibcryptoErrorQueue.clear()
            return nil
        }
        defer { ECDSA_SIG_free(signature) }
        let rNumber = bigNumber(r)
        let sNumber = bigNumber(s)
        // On success ECDSA_SIG_set0 takes ownership of both numbers (freed with the signature).
        guard let rNumber, let sNumber, ECDSA_SIG_set0(signature, rNumber, sNumber) == 1 else {
            BN_free(rNumber)
            BN_free(sNumber)
            LibcryptoErrorQueue.clear()
            return nil
        }
        let length = Int(i2d_ECDSA_SIG(signature, nil))
        guard length > 0, length <= maximumDERSignatureByteCount else {
            LibcryptoErrorQueue.clear()
            return nil
        }
        var der = [UInt8](repeating: 0, count: length)
        let written = der.withUnsafeMutableBufferPointer { buffer in
            // i2d advances the pointer it is given past the bytes it writes; the buffer holds exactly `length`.
            var cursor = buffer.baseAddress
            return Int(i2d_ECDSA_SIG(signature, &cursor))
        }
        guard written == length else {
            LibcryptoErrorQueue.clear()
            return nil
        }
        return der
    }

    private static func bigNumber(_ bytes: ArraySlice<UInt8>) -> OpaquePointer? {
        bytes.withNonNullUnsafeBytes { input in
            BN_bin2bn(input.bytePointer, Int32(input.count), nil)
        }
    }
}
