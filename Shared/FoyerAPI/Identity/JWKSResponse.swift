public import FoyerWire
public import NIOCore

/// `getJWKS` response: the published signing keys.
///
/// ```
/// bytes json   <= 64 KiB: a JWK Set (RFC 7517 §5), UTF-8 JSON, Ed25519 keys (`kty` OKP, `alg` EdDSA)
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
