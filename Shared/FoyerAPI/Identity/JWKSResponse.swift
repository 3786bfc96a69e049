public import FoyerWire
public import NIOCore

/// `getJWKS` response: the published signing keys.
///
/// ```
/// bytes json   <= 64 KiB: a JWK Set (RFC 7517 §5), UTF-8 JSON; each key has `kid`, `alg` and `use` sig:
///                       P-256 (`kty` EC, `alg` ES256), RSA (`kty` RSA, `alg` RS256) or Ed25519 (`kty` OKP,
///                       `alg` EdDSA); during a change of algorithm, keys of two algorithms
/// ```
public struct JWKSResponse: WireMessage, Hashable {
    public var json: [UInt8]

    public init(json: [UInt8]) {
        self.json = json
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        json = try buffer.readLengthPrefixedBytes("jwks.json", maxBytes: IdentityLimits.jwksByteCountMax)
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedBytes(json)
    }
}
