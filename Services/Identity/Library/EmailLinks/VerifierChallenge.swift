import FoyerCrypto

/// How a link's verifier is checked against the challenge given when the link was asked for.
///
/// RFC 7636's S256: the challenge is SHA-256 of the verifier as sent, which over HTTP is the ASCII of the verifier's
/// text (43-128 unreserved characters). Clients made before identity followed RFC 7636 to the letter sent a
/// base64url text and hashed the bytes it decodes to; a verifier that is base64url text is also checked that way,
/// so their links keep working (both are preimages of a SHA-256, so neither is easier to guess).
enum VerifierChallenge {
    static func matches(_ verifier: [UInt8], _ challenge: [UInt8]) -> Bool {
        if ConstantTime.equals(SHA256.hash(verifier), challenge) { return true }
        guard let decoded = try? Base64URL.decode(String(decoding: verifier, as: UTF8.self)), !decoded.isEmpty
        else { return false }
        return ConstantTime.equals(SHA256.hash(decoded), challenge)
    }
}
