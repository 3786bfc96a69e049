/// An email address as identity keeps it: trimmed of nothing, refused rather than repaired, lower-cased so that
/// `Ann@Example.com` and `ann@example.com` are one credential.
struct EmailAddress: Sendable, Hashable, CustomStringConvertible {
    /// RFC 5321's limit on a forward path, minus the angle brackets.
    static let byteCountMax = 254

    let value: String

    /// Validates and normalizes `text`; nil when it is not a plausible address: longer than 254 bytes, without
    /// exactly one `@` between a non-empty local part (≤ 64 bytes) and a dotted domain, or containing spaces,
    /// control characters or characters that would break a mail header.
    init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count <= Self.byteCountMax, bytes.count >= 3 else { return nil }
        let forbidden: Set<UInt8> = [
            UInt8(ascii: " "), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "("), UInt8(ascii: ")"),
            UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: ":"), UInt8(ascii: "\\"), UInt8(ascii: "\""),
            UInt8(ascii: "["), UInt8(ascii: "]"),
        ]
        guard !bytes.contains(where: { $0 < 0x21 || $0 == 0x7F || forbidden.contains($0) }) else { return nil }
        let parts = bytes.split(separator: UInt8(ascii: "@"), omittingEmptySubsequences: false)
        guard parts.count == 2, (1...64).contains(parts[0].count) else { return nil }
        let domain = parts[1]
        let labels = domain.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy({ (1...63).contains($0.count) }) else { return nil }
        value = text.lowercased()
    }

    var description: String { value }

    /// The domain, lower-cased.
    var domain: Substring { value[value.index(after: value.lastIndex(of: "@")!)...] }
}
