internal import CFoyerLibcrypto

/// An RSA signing key for RS256 (RSASSA-PKCS1-v1_5 with SHA-256, RFC 7518 §3.3), held inside libcrypto.
///
/// The key is stored as its PKCS #1 `RSAPrivateKey` DER (``derRepresentation``).
public struct RSAPrivateKey: Sendable {
    /// The modulus size of the keys ``init()`` generates: the size RFC 7518 §3.3 requires at least, which every
    /// RS256 verifier accepts and which keeps tokens and the key set small.
    public static let generatedModulusBitCount = 2048

    private let key: EVPKey

    /// The matching verification key.
    public let publicKey: RSAPublicKey

    /// Generates a new key of ``generatedModulusBitCount`` bits with public exponent 65537.
    public init() {
        do {
            let key = try EVPKey.generate(keyType: cfoyer_key_type_rsa()) { context in
                EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(Self.generatedModulusBitCount)) == 1
            }
            try self.init(key)
        } catch {
            // Generating an RSA key fails only if libcrypto cannot allocate.
            preconditionFailure("could not generate an RSA key: \(error)")
        }
    }

    /// Restores a key from its PKCS #1 `RSAPrivateKey` DER, as ``derRepresentation`` wrote it.
    ///
    /// - Throws: ``FoyerCryptoError/invalidKey`` if the bytes are not exactly one RSA private key whose public half
    ///   ``RSAPublicKey`` accepts (2048 to 8192 bits).
    public init(derRepresentation: [UInt8]) throws {
        try self.init(try EVPKey.privateKey(type: cfoyer_pkey_rsa(), der: derRepresentation))
    }

    private init(_ key: EVPKey) throws {
        self.key = key
        publicKey = try RSAPublicKey(
            modulus: key.integerParameter(cfoyer_param_rsa_n()),
            exponent: key.integerParameter(cfoyer_param_rsa_e())
        )
    }

    /// The PKCS #1 `RSAPrivateKey` DER of the key. Treat the result as secret.
    public var derRepresentation: [UInt8] {
        get throws { try key.privateKeyDER() }
    }

    /// Signs `message` with RSASSA-PKCS1-v1_5 over SHA-256; the signature is as long as the modulus.
    ///
    /// - Throws: ``FoyerCryptoError/libraryFailure`` only if libcrypto fails.
    public func rs256Signature(for message: some Collection<UInt8>) throws -> [UInt8] {
        // PKCS #1 v1.5 is the default padding of an RSA EVP_PKEY, so no further context setup is needed.
        try message.withNonNullUnsafeBytes { bytes in try key.sign(bytes, digest: EVP_sha256()) }
    }
}
