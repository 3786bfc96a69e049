#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif

/// A JWK Set (RFC 7517 §5): the published verification keys of an issuer.
public struct JWKSet: Codable, Sendable, Equatable {
    /// The default cap on the JSON accepted by ``init(json:maxLength:)``: 64 KiB.
    public static let defaultMaxJSONLength = 64 << 10

    /// The keys, in the order given.
    public var keys: [JWK]

    public init(keys: [JWK]) {
        self.keys = keys
    }

    /// Decodes a JWK Set from JSON, such as the body of a `jwks_uri` response.
    ///
    /// - Throws: ``FoyerCryptoError/inputTooLarge`` if `json` is longer than `maxLength`, or
    ///   ``FoyerCryptoError/invalidKey`` if it is not a JSON object with a `keys` array of JWKs.
    public init(json: some Collection<UInt8>, maxLength: Int = defaultMaxJSONLength) throws {
        guard json.count <= maxLength else {
            throw FoyerCryptoError.inputTooLarge("a JWK Set of \(json.count) bytes exceeds the \(maxLength)-byte cap")
        }
        self = try JOSEJSON.decode(Self.self, from: Array(json), failure: .invalidKey("the JSON is not a JWK Set"))
    }

    /// The JSON form (sorted keys), for publishing.
    public func jsonBytes() throws -> [UInt8] {
        try JOSEJSON.encode(self, failure: .invalidKey)
    }

    /// The first key whose `kid` equals `id`, or nil.
    public func key(id: String) -> JWK? {
        keys.first { $0.kid == id }
    }

    /// The first key whose `kid` equals `id`, converted for verification.
    ///
    /// - Throws: ``FoyerCryptoError/unknownKeyID`` if there is no such key, or the errors of
    ///   ``JWK/verificationKey()``.
    public func verificationKey(id: String) throws -> JWTVerificationKey {
        guard let jwk = key(id: id) else { throw FoyerCryptoError.unknownKeyID("no key in the set has that kid") }
        return try jwk.verificationKey()
    }
}
