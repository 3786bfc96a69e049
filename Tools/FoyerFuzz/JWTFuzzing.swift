import FoyerCrypto

/// The `jwt` and `jwks` targets: the compact JWS reader (`JWT.decode`: segments, strict base64url, the header's
/// JSON object scanner and JOSE JSON decoding) and the JWK Set reader (`JWKSet(json:)`), which read ID tokens from
/// Apple and Google, access tokens from clients, and the providers' published keys.
///
/// Invariants: a decoded token's segments re-encode to its signing input and signature (strict base64url has one
/// encoding per value); a decoded JWK Set encodes to JSON that decodes to an equal set.
enum JWTFuzzing {
    static let jwtTarget = FuzzTarget(
        name: "jwt",
        summary: "compact JWS/JWT reader (JWT.decode, JSONObjectScanner, JOSEJSON)",
        run: { runJWT(Array($0)) },
        seeds: { FuzzSeeds.tokens }
    )

    static let jwksTarget = FuzzTarget(
        name: "jwks",
        summary: "JWK Set reader (JWKSet(json:), JOSEJSON)",
        run: { runJWKS(Array($0)) },
        seeds: { FuzzSeeds.keySets }
    )

    static func runJWT(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let token = try? JWT.decode(text) else { return }
        let signingInput = Base64URL.encode(token.headerJSON) + "." + Base64URL.encode(token.payload)
        guard Array(signingInput.utf8) == token.signingInput else {
            FuzzTarget.violated("jwt", "the signing input is not the re-encoded header and payload")
        }
        guard text == signingInput + "." + Base64URL.encode(token.signature) else {
            FuzzTarget.violated("jwt", "a decoded token does not re-encode to its own text")
        }
    }

    static func runJWKS(_ bytes: [UInt8]) {
        guard let keySet = try? JWKSet(json: bytes) else { return }
        guard let json = try? keySet.jsonBytes() else {
            FuzzTarget.violated("jwks", "a decoded JWK Set cannot be encoded")
        }
        guard let again = try? JWKSet(json: json, maxLength: .max), again == keySet else {
            FuzzTarget.violated("jwks", "a JWK Set's own JSON does not decode to an equal set")
        }
    }
}
