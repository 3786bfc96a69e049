/// The caps of user-data's messages: part of the contract.
///
/// Keys and collections are read against a looser transport cap and then checked against their own, so that a key
/// that is too long is answered `invalid-key` rather than a generic `invalid-argument`; values are read against the
/// frame size and checked against the server's configured cap (`value-too-large`).
public enum UserDataLimits {
    /// A uid: 1–64 bytes of `A-Z a-z 0-9 _ -`.
    public static let uidByteCountMax = 64
    /// A collection: 1–64 bytes of `A-Z a-z 0-9 _ . -`.
    public static let collectionByteCountMax = 64
    /// A key: 1–256 bytes of UTF-8 without control characters (U+0000–U+001F, U+007F–U+009F).
    public static let keyByteCountMax = 256
    /// The transport caps of collections and keys (longer bodies are refused `invalid-argument`).
    public static let collectionWireByteCountMax = 1024
    public static let keyWireByteCountMax = 4096
    /// The transport cap of a value; the server's own cap (`UserDataConfiguration.valueByteCountMax`, at most
    /// `valueByteCountLimit`) is lower.
    public static let valueWireByteCountMax = 1 << 20
    /// The highest value cap a server may be configured with, so that any document fits one frame.
    public static let valueByteCountLimit = 1_000_000
    /// An opaque page cursor.
    public static let cursorByteCountMax = 1024
    /// An op id: 1–128 bytes of printable ASCII (`0x21`–`0x7E`).
    public static let operationIDByteCountMax = 128
    /// A caller's digest of a `putOnce` request: 1–64 bytes (SHA-256 and SHA-512 fit).
    public static let requestDigestByteCountMax = 64
    /// Most documents in one page (a server's configured page size is at most this).
    public static let pageSizeLimit = 1000
    /// Most conflicts listed one by one in a merge report (the counts are always complete).
    public static let listedConflictsMax = 1000

    /// Whether `uid` has the shape of a Foyer uid.
    public static func isValidUID(_ uid: String) -> Bool {
        let bytes = uid.utf8
        guard (1...uidByteCountMax).contains(bytes.count) else { return false }
        return bytes.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
    }

    /// Whether `collection` is a valid collection name.
    public static func isValidCollection(_ collection: String) -> Bool {
        let bytes = collection.utf8
        guard (1...collectionByteCountMax).contains(bytes.count) else { return false }
        return bytes.allSatisfy {
            isAlphanumeric($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-")
        }
    }

    /// Whether `key` is a valid document key.
    public static func isValidKey(_ key: String) -> Bool {
        guard (1...keyByteCountMax).contains(key.utf8.count) else { return false }
        return key.unicodeScalars.allSatisfy { scalar in
            !(scalar.value <= 0x1F || (0x7F...0x9F).contains(scalar.value))
        }
    }

    /// Whether `op` is a usable op id.
    public static func isValidOperationID(_ op: String) -> Bool {
        let bytes = op.utf8
        guard (1...operationIDByteCountMax).contains(bytes.count) else { return false }
        return bytes.allSatisfy { (0x21...0x7E).contains($0) }
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: false
        }
    }
}
