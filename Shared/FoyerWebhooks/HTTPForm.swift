import Foundation

/// `application/x-www-form-urlencoded` bodies, as Sign in with Apple's token endpoint and the siteverify
/// endpoints of sign-up checks take them.
public enum HTTPForm {
    /// `name=value` pairs joined with `&`, each side percent-encoded: the unreserved characters (`A-Z a-z 0-9 - . _
    /// ~`) as they are, every other UTF-8 byte as `%XX`.
    public static func encoded(_ fields: [(String, String)]) -> String {
        fields.map { "\(percentEncoded($0.0))=\(percentEncoded($0.1))" }.joined(separator: "&")
    }

    static func percentEncoded(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                encoded += String(format: "%%%02X", byte)
            }
        }
        return encoded
    }
}
