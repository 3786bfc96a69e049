import Foundation
import FoyerCrypto
import Testing

@Suite("JWT: published examples and round trips")
struct JWTExampleTests {
    @Test("RFC 8037 A.4: the EdDSA JWS is reproduced byte for byte")
    func rfc8037SignatureIsReproduced() throws {
        let key = try JOSEExamples.ed25519PrivateKey()
        #expect(Base64URL.encode(key.publicKey.rawRepresentation) == JOSEExamples.ed25519X)
        let signer = JWTSigner(privateKey: key, keyID: nil, type: nil)
        let token = try signer.sign(payload: bytes(JOSEExamples.ed25519Payload))
        #expect(token == JOSEExamples.ed25519Token)
    }

    @Test("RFC 8037 A.5: the EdDSA JWS verifies with the public JWK")
    func rfc8037TokenVerifies() throws {
        let jwk = JWK(kty: "OKP", crv: "Ed25519", x: JOSEExamples.ed25519X)
        let verified = try JWT.decode(JOSEExamples.ed25519Token).verify(with: jwk.verificationKey())
        #expect(verified.header == JWSHeader(algorithm: .edDSA))
        #expect(verified.payload == bytes(JOSEExamples.ed25519Payload))
    }

    @Test("RFC 7515 A.2: the RS256 JWS verifies with the RFC's JWK")
    func rfc7515RS256TokenVerifies() throws {
        let jwk = JWK(kty: "RSA", n: JOSEExamples.rsaModulus, e: JOSEExamples.rsaExponent)
        let token = try JWT.decode(JOSEExamples.rs256Token)
        #expect(token.algorithm == .rs256)
        #expect(token.headerJSON == bytes("{\"alg\":\"RS256\"}"))
        let verified = try token.verify(with: jwk.verificationKey())
        #expect(verified.payload == bytes(JOSEExamples.payloadJSON))
        let claims = try verified.registeredClaims()
        #expect(claims.issuer == "joe")
        #expect(claims.expiresAt == Date(timeIntervalSince1970: 1_300_819_380))
    }

    @Test("RFC 7515 A.3: the ES256 JWS verifies with the RFC's JWK")
    func rfc7515ES256TokenVerifies() throws {
        let jwk = JWK(kty: "EC", crv: "P-256", x: JOSEExamples.p256X, y: JOSEExamples.p256Y)
        let token = try JWT.decode(JOSEExamples.es256Token)
        #expect(token.algorithm == .es256)
        #expect(token.signature.count == 64)
        let verified = try token.verify(with: jwk.verificationKey())
        #expect(verified.payload == bytes(JOSEExamples.payloadJSON))
    }

    @Test("Signed registered claims round-trip, with aud as a string or an array")
    func registeredClaimsRoundTrip() throws {
        let signer = JWTSigner(privateKey: Ed25519PrivateKey(), keyID: "session-1")
        for audience in [["foyer"], ["foyer", "admin"]] {
            let claims = JWTClaims(
                issuer: "https://id.foyer.example",
                subject: "account-42",
                audience: audience,
                expiresAt: Date(timeIntervalSince1970: 2_000_000_000),
                notBefore: Date(timeIntervalSince1970: 1_700_000_000),
                issuedAt: Date(timeIntervalSince1970: 1_700_000_000.5),
                jwtID: "jti-1"
            )
            let token = try signer.sign(claims: claims)
            let unverified = try JWT.decode(token)
            #expect(unverified.header == JWSHeader(algorithm: .edDSA, keyID: "session-1", type: "JWT"))
            #expect(unverified.headerJSON == bytes("{\"alg\":\"EdDSA\",\"kid\":\"session-1\",\"typ\":\"JWT\"}"))
            let verified = try unverified.verify(with: signer.verificationKey)
            #expect(try verified.registeredClaims() == claims)
            let payload = String(decoding: verified.payload, as: UTF8.self)
            #expect(payload.contains(audience.count == 1 ? "\"aud\":\"foyer\"" : "\"aud\":[\"foyer\",\"admin\"]"))
            #expect(payload.contains("\"exp\":2000000000"))
        }
    }

    struct SessionClaims: Codable, Equatable {
        var sub: String
        var exp: Date
        var scopes: [String]
    }

    @Test("Custom Codable claims are signed with sorted keys and decode back")
    func customClaimsRoundTrip() throws {
        let signer = JWTSigner(privateKey: Ed25519PrivateKey(), keyID: "k")
        let claims = SessionClaims(sub: "a/b", exp: Date(timeIntervalSince1970: 1_800_000_000), scopes: ["read"])
        let verified = try JWTVerifier(key: signer.verificationKey).verify(signer.sign(claims: claims))
        let expectedJSON = #"{"exp":1800000000,"scopes":["read"],"sub":"a/b"}"#
        #expect(String(decoding: verified.payload, as: UTF8.self) == expectedJSON)
        #expect(try verified.claims(as: SessionClaims.self) == claims)
    }

    @Test("A verifier built from a JWK Set picks the key named by kid")
    func keySetVerifierSelectsByKeyID() throws {
        let current = JWTSigner(privateKey: Ed25519PrivateKey(), keyID: "current")
        let previous = JWTSigner(privateKey: Ed25519PrivateKey(), keyID: "previous")
        let set = JWKSet(keys: [
            JWK(kty: "RSA", kid: "rsa", n: JOSEExamples.rsaModulus, e: JOSEExamples.rsaExponent),
            current.jwk, previous.jwk,
        ])
        let verifier = JWTVerifier(keySet: try JWKSet(json: set.jsonBytes()))
        for signer in [current, previous] {
            let verified = try verifier.verify(signer.sign(payload: bytes("{}")))
            #expect(verified.header.keyID == signer.keyID)
            #expect(try JWT.decode(signer.sign(payload: bytes("{}"))).verify(with: set).payload == bytes("{}"))
        }
    }

    @Test("Headers with nested values, escapes and whitespace decode")
    func headersWithRichJSONDecode() throws {
        let header = """
            { "alg" : "EdDSA", "x5c": ["a", "b\\"c", []], "jwk": {"kty": "OKP", "n": [1, -2.5e3, true, false, null]},
              "kid": "k\\u00e9\\ud83d\\ude00", "typ": "JWT", "empty": {} }
            """
        let token = try JWT.decode(Base64URL.encode(bytes(header)) + ".e30.AAAA")
        #expect(token.header == JWSHeader(algorithm: .edDSA, keyID: "k\u{E9}\u{1F600}", type: "JWT"))
        #expect(token.headerJSON == bytes(header))
    }

    @Test("Public keys export as JWKs that convert back to the same key")
    func jwkExportRoundTrips() throws {
        let ed25519 = Ed25519PrivateKey().publicKey
        let rsa = try JOSEExamples.rsaKey()
        let p256 = try JOSEExamples.p256Key()
        for key in [JWTVerificationKey.ed25519(ed25519), .rsa(rsa), .p256(p256)] {
            let jwk = key.jwk(keyID: "id")
            #expect(jwk.kid == "id" && jwk.use == "sig" && jwk.alg == key.algorithm.rawValue)
            #expect(try jwk.verificationKey() == key)
        }
        #expect(ed25519.jwk(keyID: nil).x == Base64URL.encode(ed25519.rawRepresentation))
        #expect(rsa.jwk(keyID: nil).n == JOSEExamples.rsaModulus)
    }
}
