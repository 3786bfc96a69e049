/// A public JSON Web Key (RFC 7517) of one of the types FoyerCrypto verifies with:
/// Ed25519 (`kty` OKP, RFC 8037), RSA (`kty` RSA) and P-256 (`kty` EC), RFC 7518 §6.
///
/// Only the public members are modelled; private members such as `d` are ignored when decoding and never
/// written.
public struct JWK: Codable, Sendable, Equatable {
    /// Cap on the base64url length of any key member: enough for an 8192-bit modulus with a leading zero byte.
    static let maximumMemberLength = 1400

    /// Key type: "OKP", "RSA" or "EC".
    public var kty: String
    /// Key ID.
    public var kid: String?
    /// Intended algorithm; when present it must be the algorithm the key type implies.
    public var alg: String?
    /// Intended use; when present it must be "sig".
    public var use: String?
    /// Curve: "Ed25519" for OKP, "P-256" for EC.
    public var crv: String?
    /// OKP: the public key; EC: the x coordinate (base64url).
    public var x: String?
    /// EC: the y coordinate (base64url).
    public var y: String?
    /// RSA: the modulus (base64url, big-endian).
    public var n: String?
    /// RSA: the public exponent (base64url, big-endian).
    public var e: String?

    public init(
        kty: String,
        kid: String? = nil,
        alg: String? = nil,
        use: String? = nil,
        crv: String? = nil,
        x: String? = nil,
        y: String? = nil,
        n: String? = nil,
        e: String? = nil
    ) {
        self.kty = kty
        self.kid = kid
        self.alg = alg
        self.use = use
        self.crv = crv
        self.x = x
        self.y = y
        self.n = n
        self.e = e
    }

    /// Converts the JWK into a key that verifies signatures.
    ///
    /// - Throws: ``FoyerCryptoError/unsupportedAlgorithm`` for a key type or curve other than the three above,
    ///   ``FoyerCryptoError/algorithmMismatch`` if `alg` names another algorithm than the key's,
    ///   ``FoyerCryptoError/invalidKey`` if `use` is not "sig", a member is missing or not base64url, or the
    ///   key material is invalid (wrong size, off-curve point, RSA modulus under 2048 bits…).
    public func verificationKey() throws -> JWTVerificationKey {
        if let use, use != "sig" {
            throw FoyerCryptoError.invalidKey("the JWK's use is not sig")
        }
        let key: JWTVerificationKey
        switch (kty, crv) {
        case ("OKP", "Ed25519"):
            key = .ed25519(try Ed25519PublicKey(rawRepresentation: member(x, "x")))
        case ("RSA", _):
            key = .rsa(try RSAPublicKey(modulus: member(n, "n"), exponent: member(e, "e")))
        case ("EC", "P-256"):
            key = .p256(try P256PublicKey(x: member(x, "x"), y: member(y, "y")))
        default:
            throw FoyerCryptoError.unsupportedAlgorithm("the JWK is not an Ed25519, RSA or P-256 key")
        }
        if let alg, alg != key.algorithm.rawValue {
            throw FoyerCryptoError.algorithmMismatch("the JWK's alg does not match its key type")
        }
        return key
    }

    private func member(_ value: String?, _ name: String) throws -> [UInt8] {
        guard let value else { throw FoyerCryptoError.invalidKey("the JWK lacks \(name)") }
        do {
            return try Base64URL.decode(value, maxEncodedLength: Self.maximumMemberLength)
        } catch {
            throw FoyerCryptoError.invalidKey(
                "the JWK's \(name) is not base64url of at most \(Self.maximumMemberLength) characters"
            )
        }
    }
}
