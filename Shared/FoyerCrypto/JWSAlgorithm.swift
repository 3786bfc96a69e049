/// The JWS signature algorithms FoyerCrypto accepts: a fixed allowlist.
///
/// `none`, the HMAC algorithms and everything else are deliberately absent, so a token naming them fails to
/// decode with ``FoyerCryptoError/unsupportedAlgorithm`` before any key is consulted.
public enum JWSAlgorithm: String, Sendable, Hashable, CaseIterable {
    /// Ed25519 signatures (RFC 8037).
    case edDSA = "EdDSA"
    /// RSASSA-PKCS1-v1_5 with SHA-256 (RFC 7518 §3.3).
    case rs256 = "RS256"
    /// ECDSA on P-256 with SHA-256 (RFC 7518 §3.4).
    case es256 = "ES256"
}
