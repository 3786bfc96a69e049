import FoyerCrypto
import Testing

@Suite("JWK and JWK Set")
struct JWKTests {
    @Test("A JWK Set decodes from JSON, ignoring private and unknown members")
    func keySetDecodesFromJSON() throws {
        let json = """
            {"keys":[
              {"kty":"EC","crv":"P-256","x":"\(JOSEExamples.p256X)","y":"\(JOSEExamples.p256Y)",
               "d":"jpsQnnGQmL-YBIffH1136cspYG6-0iY7X1fCE9-E9LI","use":"sig","kid":"ec"},
              {"kty":"RSA","n":"\(JOSEExamples.rsaModulus)","e":"AQAB","alg":"RS256","kid":"2011-04-29",
               "x5c":["ignored"]},
              {"kty":"oct","k":"c2VjcmV0","kid":"hmac"}
            ]}
            """
        let set = try JWKSet(json: bytes(json))
        #expect(set.keys.count == 3)
        #expect(try set.verificationKey(id: "ec") == .p256(JOSEExamples.p256Key()))
        #expect(try set.verificationKey(id: "2011-04-29") == .rsa(JOSEExamples.rsaKey()))
        #expect(throws: FoyerCryptoError.unsupportedAlgorithm) { try set.verificationKey(id: "hmac") }
        #expect(throws: FoyerCryptoError.unknownKeyID) { try set.verificationKey(id: "missing") }
    }

    @Test("JSON that is not a JWK Set, or is too long, is refused")
    func invalidKeySetJSONIsRefused() {
        for json in ["", "[]", #"{"keys":{}}"#, #"{"keys":[{"kid":"no kty"}]}"#] {
            #expect(throws: FoyerCryptoError.invalidKey, "\(json)") { try JWKSet(json: bytes(json)) }
        }
        #expect(throws: FoyerCryptoError.inputTooLarge) { try JWKSet(json: bytes(#"{"keys":[]}"#), maxLength: 5) }
    }

    static let unsupported: [JWK] = [
        JWK(kty: "oct"),
        JWK(kty: "OKP", crv: "Ed448", x: JOSEExamples.ed25519X),
        JWK(kty: "OKP", crv: "X25519", x: JOSEExamples.ed25519X),
        JWK(kty: "EC", crv: "P-384", x: JOSEExamples.p256X, y: JOSEExamples.p256Y),
        JWK(kty: "ec", crv: "P-256", x: JOSEExamples.p256X, y: JOSEExamples.p256Y),
    ]

    @Test("Unsupported key types and curves are refused", arguments: unsupported)
    func unsupportedKeysAreRefused(jwk: JWK) {
        #expect(throws: FoyerCryptoError.unsupportedAlgorithm) { try jwk.verificationKey() }
    }

    static let invalid: [JWK] = [
        JWK(kty: "RSA", use: "enc", n: JOSEExamples.rsaModulus, e: "AQAB"),
        JWK(kty: "RSA", e: "AQAB"),
        JWK(kty: "RSA", n: JOSEExamples.rsaModulus),
        JWK(kty: "RSA", n: JOSEExamples.rsaModulus + "=", e: "AQAB"),
        JWK(kty: "RSA", n: String(JOSEExamples.rsaModulus.prefix(171)), e: "AQAB"),
        JWK(kty: "RSA", n: String(repeating: "A", count: 1404), e: "AQAB"),
        JWK(kty: "OKP", crv: "Ed25519"),
        JWK(kty: "OKP", crv: "Ed25519", x: String(JOSEExamples.ed25519X.dropLast(3))),
        JWK(kty: "EC", crv: "P-256", x: JOSEExamples.p256X),
        JWK(kty: "EC", crv: "P-256", x: JOSEExamples.p256X, y: JOSEExamples.p256X),
    ]

    @Test("Missing, malformed, wrongly sized or off-curve key material is refused", arguments: invalid)
    func invalidKeyMaterialIsRefused(jwk: JWK) {
        #expect(throws: FoyerCryptoError.invalidKey) { try jwk.verificationKey() }
    }

    @Test("A JWK whose alg contradicts its key type is refused")
    func contradictoryAlgIsRefused() {
        let jwks = [
            JWK(kty: "RSA", alg: "PS256", n: JOSEExamples.rsaModulus, e: "AQAB"),
            JWK(kty: "RSA", alg: "ES256", n: JOSEExamples.rsaModulus, e: "AQAB"),
            JWK(kty: "OKP", alg: "RS256", crv: "Ed25519", x: JOSEExamples.ed25519X),
            JWK(kty: "EC", alg: "none", crv: "P-256", x: JOSEExamples.p256X, y: JOSEExamples.p256Y),
        ]
        for jwk in jwks {
            #expect(throws: FoyerCryptoError.algorithmMismatch) { try jwk.verificationKey() }
        }
    }

    @Test("Errors compare by kind and describe themselves")
    func errorsCompareByKind() {
        let error = FoyerCryptoError.invalidKey
        #expect(error == FoyerCryptoError.invalidKey)
        #expect(error != FoyerCryptoError.invalidParameters)
        #expect(error.description == "invalid key")
        #expect(Set([FoyerCryptoError.invalidKey, .invalidKey, .malformedToken]).count == 2)
    }
}
