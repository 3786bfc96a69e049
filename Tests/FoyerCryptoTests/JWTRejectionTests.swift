import FoyerCrypto
import Testing

@Suite("JWT: rejection of hostile and malformed tokens")
struct JWTRejectionTests {
    private static let signer = JWTSigner(privateKey: Ed25519PrivateKey(), keyID: "k1")

    private static func segment(_ json: String) -> String {
        Base64URL.encode(bytes(json))
    }

    private static func validToken() throws -> String {
        try signer.sign(payload: bytes(#"{"sub":"alice"}"#))
    }

    @Test("A token with a changed signature byte fails verification")
    func tamperedSignatureFails() throws {
        let parts = try Self.validToken().split(separator: ".").map(String.init)
        let signature = flippingBit(in: base64URL(parts[2]), at: 10)
        let token = parts[0] + "." + parts[1] + "." + Base64URL.encode(signature)
        #expect(throws: FoyerCryptoError.signatureVerificationFailed) {
            try JWT.decode(token).verify(with: Self.signer.verificationKey)
        }
    }

    @Test("A token with a swapped payload fails verification")
    func tamperedPayloadFails() throws {
        let parts = try Self.validToken().split(separator: ".").map(String.init)
        let token = parts[0] + "." + Self.segment(#"{"sub":"admin"}"#) + "." + parts[2]
        #expect(throws: FoyerCryptoError.signatureVerificationFailed) {
            try JWT.decode(token).verify(with: Self.signer.verificationKey)
        }
    }

    @Test("A token with an edited header fails verification")
    func tamperedHeaderFails() throws {
        let parts = try Self.validToken().split(separator: ".").map(String.init)
        let header = Self.segment(#"{"alg":"EdDSA","kid":"k2","typ":"JWT"}"#)
        #expect(throws: FoyerCryptoError.signatureVerificationFailed) {
            try JWT.decode(header + "." + parts[1] + "." + parts[2]).verify(with: Self.signer.verificationKey)
        }
    }

    @Test("alg none is refused, with or without a signature segment")
    func algNoneIsRefused() {
        let header = Self.segment(#"{"alg":"none"}"#)
        let payload = Self.segment(#"{"sub":"admin"}"#)
        #expect(throws: FoyerCryptoError.unsupportedAlgorithm) { try JWT.decode(header + "." + payload + ".") }
        #expect(throws: FoyerCryptoError.unsupportedAlgorithm) { try JWT.decode(header + "." + payload + ".AAAA") }
        let edDSA = Self.segment(#"{"alg":"EdDSA"}"#)
        #expect(throws: FoyerCryptoError.malformedToken) { try JWT.decode(edDSA + "." + payload + ".") }
    }

    @Test(
        "Algorithms outside the allowlist are refused",
        arguments: ["HS256", "RS512", "PS256", "ES384", "Ed25519", "eddsa", "NONE", ""]
    )
    func unlistedAlgorithmsAreRefused(alg: String) {
        let token = Self.segment(#"{"alg":"\#(alg)"}"#) + "." + Self.segment("{}") + ".AAAA"
        #expect(throws: FoyerCryptoError.unsupportedAlgorithm) { try JWT.decode(token) }
    }

    @Test("A token's alg must equal the key's algorithm: no algorithm confusion")
    func algorithmMismatchIsRefused() throws {
        let rs256 = try JWT.decode(JOSEExamples.rs256Token)
        #expect(throws: FoyerCryptoError.algorithmMismatch) { try rs256.verify(with: Self.signer.verificationKey) }
        #expect(throws: FoyerCryptoError.algorithmMismatch) { try rs256.verify(with: .p256(JOSEExamples.p256Key())) }
        let edDSA = try JWT.decode(Self.validToken())
        #expect(throws: FoyerCryptoError.algorithmMismatch) { try edDSA.verify(with: .rsa(JOSEExamples.rsaKey())) }
    }

    @Test("A kid that is not in the key set, or no kid at all, is refused")
    func unknownKeyIDIsRefused() throws {
        let set = JWKSet(keys: [Self.signer.jwk])
        let stranger = JWTSigner(privateKey: Ed25519PrivateKey(), keyID: "k2")
        let anonymous = JWTSigner(privateKey: Ed25519PrivateKey(), keyID: nil)
        for token in [try stranger.sign(payload: bytes("{}")), try anonymous.sign(payload: bytes("{}"))] {
            #expect(throws: FoyerCryptoError.unknownKeyID) { try JWT.decode(token).verify(with: set) }
            #expect(throws: FoyerCryptoError.unknownKeyID) { try JWTVerifier(keySet: set).verify(token) }
        }
        #expect(set.key(id: "k2") == nil)
    }

    @Test("A key set entry that cannot be used reports why when a token names it")
    func unusableKeyInSetReportsItsError() throws {
        let modulus1024 = Base64URL.encode([0xC1] + [UInt8](repeating: 1, count: 127))
        let weak = JWK(kty: "RSA", kid: "weak", n: modulus1024, e: "AQAB")
        let verifier = JWTVerifier(keySet: JWKSet(keys: [weak, Self.signer.jwk]))
        let token = Self.segment(#"{"alg":"RS256","kid":"weak"}"#) + "." + Self.segment("{}") + ".AAAA"
        #expect(throws: FoyerCryptoError.invalidKey) { try verifier.verify(token) }
        #expect(try verifier.verify(Self.validToken()).header.keyID == "k1")
    }

    @Test("Tokens over the length cap are refused before parsing")
    func oversizedTokensAreRefused() throws {
        let token = try Self.validToken()
        #expect(throws: FoyerCryptoError.inputTooLarge) { try JWT.decode(token, maxLength: token.utf8.count - 1) }
        let garbage = String(repeating: "!", count: JWT.defaultMaxLength + 1)
        #expect(throws: FoyerCryptoError.inputTooLarge) { try JWT.decode(garbage) }
        #expect(throws: FoyerCryptoError.inputTooLarge) {
            try JWTVerifier(key: Self.signer.verificationKey, maxTokenLength: 16).verify(token)
        }
        _ = try JWT.decode(token, maxLength: token.utf8.count)
    }

    static let malformed: [(String, String)] = [
        ("", "empty"),
        ("abc", "one segment"),
        ("eyJhbGciOiJFZERTQSJ9.e30", "two segments"),
        ("eyJhbGciOiJFZERTQSJ9.e30.AAAA.AAAA", "four segments"),
        ("eyJhbGciOiJFZERTQSJ9.e30.AAAA.AAAA.AAAA", "five segments (JWE)"),
        (".e30.AAAA", "empty header"),
        ("eyJhbGciOiJFZERTQSJ9.e30.", "empty signature"),
        ("eyJhbGciOiJFZERTQSJ9.e30=.AAAA", "padded payload"),
        ("eyJhbGciOiJFZERTQSJ9.e30.AA+A", "standard-alphabet signature"),
        ("eyJhbGciOiJFZERTQSJ9 .e30.AAAA", "space in header"),
        ("eyJhbGciOiJFZERTQSJ9.e30.AAAAA", "impossible signature length"),
        ("bm90IGpzb24.e30.AAAA", "header is not JSON"),
        ("WyJFZERTQSJd.e30.AAAA", "header is a JSON array"),
        ("eyJ0eXAiOiJKV1QifQ.e30.AAAA", "header without alg"),
        ("eyJhbGciOjF9.e30.AAAA", "alg is a number"),
        ("eyJhbGciOiJFZERTQSIsImtpZCI6MX0.e30.AAAA", "kid is a number"),
    ]

    @Test("Malformed compact serializations are refused", arguments: malformed)
    func malformedTokensAreRefused(token: String, reason: String) {
        #expect(throws: FoyerCryptoError.malformedToken, "\(reason)") { try JWT.decode(token) }
    }

    @Test("Duplicate header parameters are refused, even when one is escaped")
    func duplicateHeaderParametersAreRefused() {
        let headers = [
            #"{"alg":"EdDSA","alg":"none"}"#,
            #"{"alg":"none","alg":"EdDSA"}"#,
            #"{"alg":"EdDSA","kid":"a","kid":"b"}"#,
            #"{"alg":"EdDSA","al\u0067":"EdDSA"}"#,
            #"{"alg":"EdDSA","nested":{"x":1},"nested":[]}"#,
        ]
        for header in headers {
            #expect(throws: FoyerCryptoError.malformedToken, "\(header)") {
                try JWT.decode(Self.segment(header) + "." + Self.segment("{}") + ".AAAA")
            }
        }
    }

    @Test("Headers that are not exactly one well-formed JSON object are refused")
    func headersWithTrailingOrBrokenJSONAreRefused() {
        let headers = [
            #"{"alg":"EdDSA"} {}"#, #"{"alg":"EdDSA",}"#, #"{"alg":"EdDSA","x":"\ud800"}"#, #"{"alg":"EdDSA""#,
            #"{"alg":"EdDSA","deep":"# + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}",
        ]
        for header in headers {
            #expect(throws: FoyerCryptoError.malformedToken, "\(header)") {
                try JWT.decode(Self.segment(header) + "." + Self.segment("{}") + ".AAAA")
            }
        }
    }

    @Test("A crit header is refused, whatever it lists")
    func critHeaderIsRefused() {
        let headers = [
            #"{"alg":"EdDSA","crit":["exp"],"exp":1}"#, #"{"alg":"EdDSA","crit":[]}"#, #"{"crit":null,"alg":"EdDSA"}"#,
        ]
        for header in headers {
            #expect(throws: FoyerCryptoError.unsupportedCriticalHeader) {
                try JWT.decode(Self.segment(header) + "." + Self.segment("{}") + ".AAAA")
            }
        }
    }

    @Test("Payloads that are not a claims object are refused as claims")
    func invalidClaimsAreRefused() throws {
        let payloads = ["[]", "\"text\"", #"{"aud":5}"#, #"{"exp":"tomorrow"}"#, "not json", #"{"sub":"a","sub":"b"}"#]
        for payload in payloads {
            let token = try Self.signer.sign(payload: bytes(payload))
            let verified = try JWT.decode(token).verify(with: Self.signer.verificationKey)
            #expect(throws: FoyerCryptoError.invalidClaims, "\(payload)") { try verified.registeredClaims() }
        }
        #expect(throws: FoyerCryptoError.invalidClaims) { try Self.signer.sign(claims: ["not", "an", "object"]) }
    }
}
