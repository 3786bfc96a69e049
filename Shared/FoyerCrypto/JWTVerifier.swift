/// Verifies compact JWS / JWT tokens against one key or a JWK set, with a length cap.
///
/// Keys of a set are converted once, when the verifier is created; a key that cannot be used (an unsupported
/// type, a too-small RSA modulus…) is remembered with its error, which is thrown when a token names it.
public struct JWTVerifier: Sendable {
    private enum Keys: Sendable {
        case single(JWTVerificationKey)
        case byID([String: Result<JWTVerificationKey, FoyerCryptoError>])
    }

    private let keys: Keys

    /// The longest token accepted, in bytes.
    public let maxTokenLength: Int

    /// A verifier that accepts only tokens signed by `key` (whatever their `kid`).
    public init(key: JWTVerificationKey, maxTokenLength: Int = JWT.defaultMaxLength) {
        keys = .single(key)
        self.maxTokenLength = maxTokenLength
    }

    /// A verifier that picks the key by the token's `kid`. When several keys share a `kid`, the first is used;
    /// keys without a `kid` are never selected.
    public init(keySet: JWKSet, maxTokenLength: Int = JWT.defaultMaxLength) {
        var byID: [String: Result<JWTVerificationKey, FoyerCryptoError>] = [:]
        for jwk in keySet.keys {
            guard let id = jwk.kid, byID[id] == nil else { continue }
            byID[id] = Result { () throws(FoyerCryptoError) in try Self.convert(jwk) }
        }
        keys = .byID(byID)
        self.maxTokenLength = maxTokenLength
    }

    /// Decodes `token` (see ``JWT/decode(_:maxLength:)``) and verifies its signature.
    ///
    /// - Throws: the errors of ``JWT/decode(_:maxLength:)``, ``FoyerCryptoError/unknownKeyID``,
    ///   ``FoyerCryptoError/algorithmMismatch`` or ``FoyerCryptoError/signatureVerificationFailed``.
    public func verify(_ token: some StringProtocol) throws -> VerifiedJWT {
        let unverified = try JWT.decode(token, maxLength: maxTokenLength)
        switch keys {
        case .single(let key):
            return try unverified.verify(with: key)
        case .byID(let byID):
            guard let keyID = unverified.keyID else { throw FoyerCryptoError.unknownKeyID("the token has no kid") }
            guard let entry = byID[keyID] else { throw FoyerCryptoError.unknownKeyID("no key has the token's kid") }
            return try unverified.verify(with: entry.get())
        }
    }

    private static func convert(_ jwk: JWK) throws(FoyerCryptoError) -> JWTVerificationKey {
        do {
            return try jwk.verificationKey()
        } catch let error as FoyerCryptoError {
            throw error
        } catch {
            throw FoyerCryptoError.invalidKey("the JWK could not be converted")
        }
    }
}
