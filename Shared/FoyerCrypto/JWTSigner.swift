/// Issues compact JWS / JWT tokens signed with Ed25519 (`alg` EdDSA, RFC 8037).
///
/// The header is `{"alg":"EdDSA","kid":…,"typ":…}` with sorted keys and without the optional members that are
/// nil, so tokens are byte-for-byte reproducible.
public struct JWTSigner: Sendable {
    private let privateKey: Ed25519PrivateKey

    /// The `kid` written into every header, if any.
    public let keyID: String?
    /// The `typ` written into every header, if any ("JWT" by default, as RFC 8725 §3.11 recommends).
    public let type: String?

    /// The algorithm of every token this signer issues.
    public var algorithm: JWSAlgorithm { .edDSA }

    /// The key that verifies this signer's tokens.
    public var verificationKey: JWTVerificationKey { .ed25519(privateKey.publicKey) }

    /// The public JWK to publish (in a ``JWKSet``) so others can verify this signer's tokens.
    public var jwk: JWK { privateKey.publicKey.jwk(keyID: keyID) }

    public init(privateKey: Ed25519PrivateKey, keyID: String?, type: String? = "JWT") {
        self.privateKey = privateKey
        self.keyID = keyID
        self.type = type
    }

    /// Signs arbitrary payload bytes and returns `header.payload.signature`.
    ///
    /// - Throws: ``FoyerCryptoError/libraryFailure`` only if libcrypto cannot allocate.
    public func sign(payload: some Collection<UInt8>) throws -> String {
        let header = JWSHeader(algorithm: algorithm, keyID: keyID, type: type)
        // Cannot fail in practice: the header holds only strings.
        let headerJSON = try JOSEJSON.encode(JWSHeaderJSON(header), failure: .malformedToken)
        let signingInput = Base64URL.encode(headerJSON) + "." + Base64URL.encode(payload)
        let signature = try privateKey.signature(for: Array(signingInput.utf8))
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
