import FoyerCrypto
import Testing

@Suite("JWT signing keys: EdDSA, ES256 and RS256")
struct JWTSigningKeyTests {
    /// One key of each algorithm, made once: an RSA key takes a noticeable time to generate.
    private static let keys = JWSAlgorithm.allCases.map { JWTSigningKey(generatingFor: $0) }

    private static func key(_ algorithm: JWSAlgorithm) -> JWTSigningKey {
        keys.first { $0.algorithm == algorithm }!
    }

    @Test(
        "A token signs and verifies under its key's algorithm, by the key and by its published JWK",
        arguments: JWSAlgorithm.allCases
    )
    func signsAndVerifies(algorithm: JWSAlgorithm) throws {
        let signer = JWTSigner(signingKey: Self.key(algorithm), keyID: "k1", type: "at+jwt")
        let token = try signer.sign(claims: JWTClaims(issuer: "https://auth.example.com", subject: "u1"))
        let decoded = try JWT.decode(token)
        #expect(decoded.header.algorithm == algorithm && decoded.header.type == "at+jwt")
        _ = try decoded.verify(with: signer.verificationKey)
        let published = try signer.jwk.verificationKey()
        #expect(published == signer.verificationKey && signer.jwk.alg == algorithm.rawValue && signer.jwk.use == "sig")
        _ = try decoded.verify(with: JWKSet(keys: [signer.jwk]))
    }

    @Test("Signatures have the JWS sizes: 64 bytes for EdDSA and ES256 (r ‖ s, not DER), the modulus for RS256")
    func signatureSizes() throws {
        let message = bytes("header.payload")
        #expect(try Self.key(.edDSA).signature(for: message).count == 64)
        for _ in 0..<32 {
            // DER would be 70 to 72 bytes; r or s with leading zero bytes must still give 64.
            #expect(try Self.key(.es256).signature(for: message).count == P256PublicKey.rawSignatureByteCount)
        }
        #expect(try Self.key(.rs256).signature(for: message).count == RSAPrivateKey.generatedModulusBitCount / 8)
    }

    @Test("A key survives its stored form, and keeps its public key", arguments: JWSAlgorithm.allCases)
    func storedRepresentationRoundTrips(algorithm: JWSAlgorithm) throws {
        let key = Self.key(algorithm)
        let restored = try JWTSigningKey(algorithm: algorithm, storedRepresentation: key.storedRepresentation)
        #expect(restored.verificationKey == key.verificationKey)
        let message = bytes("signed by the restored key")
        #expect(key.verificationKey.isValidSignature(try restored.signature(for: message), for: message))
    }

    @Test("A stored key of one algorithm, or garbage, does not load as another")
    func storedFormsAreNotInterchangeable() throws {
        let ec = try Self.key(.es256).storedRepresentation
        let rsa = try Self.key(.rs256).storedRepresentation
        #expect(throws: FoyerCryptoError.invalidKey) { try JWTSigningKey(algorithm: .rs256, storedRepresentation: ec) }
        #expect(throws: FoyerCryptoError.invalidKey) { try JWTSigningKey(algorithm: .es256, storedRepresentation: rsa) }
        #expect(throws: FoyerCryptoError.invalidKey) {
            try JWTSigningKey(algorithm: .es256, storedRepresentation: ec + [0])
        }
        #expect(throws: FoyerCryptoError.invalidKey) {
            try JWTSigningKey(algorithm: .es256, storedRepresentation: Array(ec.dropLast()))
        }
        #expect(throws: FoyerCryptoError.invalidKey) {
            try JWTSigningKey(algorithm: .edDSA, storedRepresentation: ec)
        }
    }

    @Test("A token whose alg is not its key's is refused before any signature check", arguments: JWSAlgorithm.allCases)
    func algorithmConfusionIsRefused(algorithm: JWSAlgorithm) throws {
        let token = try JWTSigner(signingKey: Self.key(algorithm), keyID: "k1").sign(payload: bytes(#"{"sub":"u1"}"#))
        let parts = token.split(separator: ".").map(String.init)
        for other in JWSAlgorithm.allCases where other != algorithm {
            let header = Base64URL.encode(bytes(#"{"alg":"\#(other.rawValue)","kid":"k1","typ":"JWT"}"#))
            #expect(throws: FoyerCryptoError.algorithmMismatch) {
                try JWT.decode(header + "." + parts[1] + "." + parts[2]).verify(
                    with: Self.key(algorithm).verificationKey
                )
            }
        }
    }

    @Test("A changed ES256 or RS256 signature fails", arguments: [JWSAlgorithm.es256, .rs256])
    func tamperedSignatureFails(algorithm: JWSAlgorithm) throws {
        let signer = JWTSigner(signingKey: Self.key(algorithm), keyID: "k1")
        let parts = try signer.sign(payload: bytes(#"{"sub":"u1"}"#)).split(separator: ".").map(String.init)
        let signature = flippingBit(in: base64URL(parts[2]), at: 40)
        #expect(throws: FoyerCryptoError.signatureVerificationFailed) {
            try JWT.decode(parts[0] + "." + parts[1] + "." + Base64URL.encode(signature)).verify(
                with: signer.verificationKey
            )
        }
    }
}
