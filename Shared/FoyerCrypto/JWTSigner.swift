/// Issues compact JWS / JWT tokens signed with one ``JWTSigningKey``: Ed25519 (`alg` EdDSA, RFC 8037), P-256
/// (ES256) or RSA (RS256), RFC 7518 §3.
///
/// The header is `{"alg":…,"kid":…,"typ":…}` with sorted keys and without the optional members that are nil, so
/// EdDSA and RS256 tokens are byte-for-byte reproducible (ES256 signatures are randomised).
public struct JWTSigner: Sendable {
    private let signingKey: JWTSigningKey

    /// The `kid` written into every header, if any.
    public let keyID: String?
    /// The `typ` written into every header, if any ("JWT" by default, as RFC 8725 §3.11 recommends).
    public let type: String?

    /// The algorithm of every token this signer issues.
    public var algorithm: JWSAlgorithm { signingKey.algorithm }

    /// The key that verifies this signer's tokens.
    public var verificationKey: JWTVerificationKey { signingKey.verificationKey }

    /// The public JWK to publish (in a ``JWKSet``) so others can verify this signer's tokens.
    public var jwk: JWK { verificationKey.jwk(keyID: keyID) }

    public init(signingKey: JWTSigningKey, keyID: String?, type: String? = "JWT") {
        self.signingKey = signingKey
        self.keyID = keyID
        self.type = type
    }

    /// A signer of EdDSA tokens.
    public init(privateKey: Ed25519PrivateKey, keyID: String?, type: String? = "JWT") {
        self.init(signingKey: .ed25519(privateKey), keyID: keyID, type: type)
    }

    /// Signs arbitrary payload bytes and returns `header.payload.signature`.
    ///
    /// - Throws: ``FoyerCryptoError/libraryFailure`` only if libcrypto fails.
    public func sign(payload: some Collection<UInt8>) throws -> String {
        let header = JWSHeader(algorithm: algorithm, keyID: keyID, type: type)
        // Cannot fail in practice: the header holds only strings.
        let headerJSON = try JOSEJSON.encode(JWSHeaderJSON(header), failure: .malformedToken)
        let signingInput = Base64URL.encode(headerJSON) + "." + Base64URL.encode(payload)
        let signature = try signingKey.signature(for: Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// Encodes `claims` as a JSON object (sorted keys, dates as NumericDate) and signs it.
    ///
    /// - Throws: ``FoyerCryptoError/invalidClaims`` if `claims` does not encode to a JSON object.
    public func sign(claims: some Encodable) throws -> String {
        let payload = try JOSEJSON.encode(claims, failure: .invalidClaims)
        guard payload.first == UInt8(ascii: "{") else {
            throw FoyerCryptoError.invalidClaims("JWT claims must encode to a JSON object")
        }
        return try sign(payload: payload)
    }
}
