import FoyerCrypto

/// A 256-bit secret handed to a client once (refresh token, email-link token, conflict ticket), stored only as
/// its SHA-256. Its text form is unpadded base64url (43 characters).
struct SecretToken: Sendable, Equatable {
    static let byteCount = 32

    let bytes: [UInt8]

    /// A fresh token from the CSPRNG.
    static func generate() -> SecretToken {
        SecretToken(bytes: SecureRandom.bytes(count: byteCount))
    }

    init(bytes: [UInt8]) {
        precondition(bytes.count == Self.byteCount, "a secret token is \(Self.byteCount) bytes")
        self.bytes = bytes
    }

    /// Parses the text form; nil for anything that is not exactly 32 bytes of strict base64url.
    init?(text: String) {
        guard text.utf8.count == 43, let bytes = try? Base64URL.decode(text, maxEncodedLength: 43),
            bytes.count == Self.byteCount
        else { return nil }
        self.bytes = bytes
    }

    var text: String { Base64URL.encode(bytes) }

    /// What the database keeps.
    var hash: [UInt8] { SHA256.hash(bytes) }

    /// This token encrypted for the holder of `key`: XOR with HMAC-SHA-256(key, purpose). Each key wraps one
    /// token only, so the pad is never reused. Unwrapping is the same operation.
    func wrapped(under key: SecretToken, purpose: String) -> [UInt8] {
        let pad = HMACSHA256.authenticationCode(key: key.bytes, message: Array(purpose.utf8))
        return zip(bytes, pad).map { $0 ^ $1 }
    }

    static func unwrap(_ wrapped: [UInt8], under key: SecretToken, purpose: String) -> SecretToken? {
        guard wrapped.count == byteCount else { return nil }
        let pad = HMACSHA256.authenticationCode(key: key.bytes, message: Array(purpose.utf8))
        return SecretToken(bytes: zip(wrapped, pad).map { $0 ^ $1 })
    }
}

/// Identifiers identity makes: uids and session ids are 128 random bits as 32 lowercase hex digits.
enum Identifiers {
    static func newUID() -> String { hex(SecureRandom.bytes(count: 16)) }
    static func newSessionID() -> String { hex(SecureRandom.bytes(count: 16)) }
    static func newMessageID() -> String { hex(SecureRandom.bytes(count: 16)) }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// SHA-256 of a labelled value, for keys that must not be stored in clear (idempotency keys, addresses).
    static func digest(_ label: String, _ value: String) -> [UInt8] {
        SHA256.hash(Array((label + ":" + value).utf8))
    }
}
