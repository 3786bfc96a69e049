/// An email link's verifier as RFC 7636 spells a `code_verifier`: 1-128 unreserved characters (`A-Z a-z 0-9 - . _ ~`;
/// the RFC asks for at least 43). Requests carry its ASCII bytes; its S256 challenge is SHA-256 of them.
public enum CodeVerifier {
    /// Whether `bytes` are such a verifier's text.
    public static func isValid(_ bytes: some Collection<UInt8>) -> Bool {
        (1...128).contains(bytes.count) && bytes.allSatisfy(isUnreserved)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }
}
