/// The caps of guest-quota's messages: part of the contract, checked by every decoder.
public enum GuestQuotaLimits {
    /// A uid: 1–64 bytes of `A-Z a-z 0-9 _ -` (identity makes 22-character base64url uids).
    public static let uidByteCountMax = 64
    /// A plan, counter or feature name: 1–64 bytes.
    public static let nameByteCountMax = 64
    /// An idempotency key or an op id: 1–128 bytes of printable ASCII (`0x21`–`0x7E`).
    public static let operationKeyByteCountMax = 128
    /// A source address as text (`203.0.113.7`, `2001:db8::1`).
    public static let sourceByteCountMax = 64
    /// Most counters or features in one answer.
    public static let entriesMax = 256
    /// Most kinds in `GuestQuotaStats.denialsByKind`.
    public static let denialKindsMax = 50
    /// Largest amount one `consume` may ask for (1 TiB); more is `invalid-amount`.
    public static let consumeAmountMax: Int64 = 1 << 40
    /// Most counters one `consume` charges at once.
    public static let chargesMax = 8

    /// Whether `uid` has the shape of a Foyer uid.
    public static func isValidUID(_ uid: String) -> Bool {
        let bytes = uid.utf8
        guard (1...uidByteCountMax).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
                true
            default: false
            }
        }
    }

    /// Whether `key` is a usable idempotency key or op id.
    public static func isValidOperationKey(_ key: String) -> Bool {
        let bytes = key.utf8
        guard (1...operationKeyByteCountMax).contains(bytes.count) else { return false }
        return bytes.allSatisfy { (0x21...0x7E).contains($0) }
    }
}
