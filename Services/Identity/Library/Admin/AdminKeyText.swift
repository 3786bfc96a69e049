import FoyerCrypto

/// The text form of an admin key, `foyer_admin_<keyID>_<secret>`: the key id is 8 random bytes as 16 lowercase hex
/// digits, the secret 32 random bytes as unpadded base64url (43 characters). Identity keeps only the SHA-256 of the
/// whole text; 256 random bits need no key-derivation function to resist guessing.
struct AdminKeyText: Sendable, Equatable {
    static let prefix = "foyer_admin_"
    static let keyIDByteCount = 8
    static let secretByteCount = 32
    /// The length of every key identity makes: the prefix, 16 hex digits, `_`, 43 base64url characters.
    static let textByteCount = prefix.utf8.count + 2 * keyIDByteCount + 1 + 43

    let keyID: String
    let text: String

    /// A fresh key from the system CSPRNG.
    static func generate() -> AdminKeyText {
        let keyID = Identifiers.hex(SecureRandom.bytes(count: keyIDByteCount))
        let secret = Base64URL.encode(SecureRandom.bytes(count: secretByteCount))
        return AdminKeyText(keyID: keyID, text: prefix + keyID + "_" + secret)
    }

    private init(keyID: String, text: String) {
        self.keyID = keyID
        self.text = text
    }

    /// Parses a presented key; nil for anything not of the form above (which then is refused without a lookup).
    init?(parsing text: String) {
        let bytes = Array(text.utf8)
        let prefixCount = Self.prefix.utf8.count
        let idEnd = prefixCount + 2 * Self.keyIDByteCount
        guard bytes.count == Self.textByteCount, text.hasPrefix(Self.prefix), bytes[idEnd] == UInt8(ascii: "_")
        else { return nil }
        let keyID = bytes[prefixCount..<idEnd]
        guard keyID.allSatisfy(Self.isLowercaseHex) else { return nil }
        let secret = String(decoding: bytes[(idEnd + 1)...], as: UTF8.self)
        guard let decoded = try? Base64URL.decode(secret, maxEncodedLength: 43), decoded.count == Self.secretByteCount
        else { return nil }
        self.keyID = String(decoding: keyID, as: UTF8.self)
        self.text = text
    }

    /// What the database keeps.
    var hash: [UInt8] { SHA256.hash(Array(text.utf8)) }

    private static func isLowercaseHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }
}
