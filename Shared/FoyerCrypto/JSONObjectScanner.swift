/// Lists the member names of a top-level JSON object (RFC 8259), so that duplicates can be refused.
///
/// JOSE requires unique member names in a JWS header (RFC 7515 §4) and a JWT claims set (RFC 7519 §4), and
/// Foundation's `JSONDecoder` silently keeps one of the duplicates. The scanner reads only as much structure as
/// it needs: nested values are skipped (checking balance, strings and escapes), and checking the values
/// themselves is left to `JSONDecoder`. Names are compared after unescaping, so `"al\u0067"` is `"alg"`.
struct JSONObjectScanner {
    /// Deeper nesting is refused; no header or claims set Foyer handles comes close.
    private static let maximumDepth = 32

    private let bytes: [UInt8]
    private var index = 0

    private init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The member names of the object `json` consists of, in order, or nil if `json` is not a single JSON
    /// object that the scanner can read (malformed, or nested more than 32 levels deep).
    static func memberNames(of json: [UInt8]) -> [String]? {
        var scanner = JSONObjectScanner(json)
        return scanner.scanTopLevelObject()
    }

    /// Whether `json` is a JSON object whose member names are all distinct.
    static func isObjectWithUniqueMemberNames(_ json: [UInt8]) -> Bool {
        guard let names = memberNames(of: json) else { return false }
        return Set(names).count == names.count
    }

    private mutating func scanTopLevelObject() -> [String]? {
        skipWhitespace()
        guard consume(UInt8(ascii: "{")) else { return nil }
        var names: [String] = []
        skipWhitespace()
        if !consume(UInt8(ascii: "}")) {
            repeat {
                skipWhitespace()
                guard let name = scanString() else { return nil }
                names.append(name)
                skipWhitespace()
                guard consume(UInt8(ascii: ":")), skipValue(depth: 1) else { return nil }
                skipWhitespace()
            } while consume(UInt8(ascii: ","))
            guard consume(UInt8(ascii: "}")) else { return nil }
        }
        skipWhitespace()
        return index == bytes.count ? names : nil
    }

    /// Skips one value (with surrounding whitespace); false if it is malformed or too deeply nested.
    private mutating func skipValue(depth: Int) -> Bool {
        skipWhitespace()
        guard index < bytes.count else { return false }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            return scanString() != nil
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            return skipContainer(depth: depth + 1)
        case UInt8(ascii: "t"):
            return consumeLiteral("true")
        case UInt8(ascii: "f"):
            return consumeLiteral("false")
        case UInt8(ascii: "n"):
            return consumeLiteral("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            // The number's exact grammar is JSONDecoder's to check; here it only has to end.
            while index < bytes.count, Self.isNumberByte(bytes[index]) { index += 1 }
            return true
        default:
            return false
        }
    }

    private mutating func skipContainer(depth: Int) -> Bool {
        guard depth <= Self.maximumDepth else { return false }
        let isObject = bytes[index] == UInt8(ascii: "{")
        let close = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
        index += 1
        skipWhitespace()
        if consume(close) { return true }
        repeat {
            if isObject {
                skipWhitespace()
                guard scanString() != nil else { return false }
                skipWhitespace()
                guard consume(UInt8(ascii: ":")) else { return false }
            }
            guard skipValue(depth: depth) else { return false }
            skipWhitespace()
        } while consume(UInt8(ascii: ","))
        return consume(close)
    }

    /// Reads a string starting at its opening quote and returns it unescaped, or nil if it is malformed.
    private mutating func scanString() -> String? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        var scalars = String.UnicodeScalarView()
        var literal: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                scalars.append(contentsOf: String(decoding: literal, as: UTF8.self).unicodeScalars)
                return String(scalars)
            case UInt8(ascii: "\\"):
                scalars.append(contentsOf: String(decoding: literal, as: UTF8.self).unicodeScalars)
                literal.removeAll(keepingCapacity: true)
                guard let scalar = scanEscape() else { return nil }
                scalars.append(scalar)
            case 0x00..<0x20:
                return nil
            default:
                literal.append(byte)
            }
        }
        return nil
    }

    /// Reads the escape after a backslash, combining a `\uD8xx\uDCxx` surrogate pair into one scalar.
    private mutating func scanEscape() -> Unicode.Scalar? {
        guard index < bytes.count else { return nil }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return Unicode.Scalar(byte)
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            guard let unit = scanHex4() else { return nil }
            guard UTF16.isLeadSurrogate(unit) else { return Unicode.Scalar(unit) }
            guard consume(UInt8(ascii: "\\")), consume(UInt8(ascii: "u")), let trail = scanHex4(),
                UTF16.isTrailSurrogate(trail)
            else { return nil }
            return Unicode.Scalar(0x10000 + (UInt32(unit - 0xD800) << 10) + UInt32(trail - 0xDC00))
        default:
            return nil
        }
    }

    private mutating func scanHex4() -> UInt16? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt16 = 0
        for byte in bytes[index..<index + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt16(digit)
        }
        index += 4
        return value
    }

    private mutating func consumeLiteral(_ literal: String) -> Bool {
        let expected = literal.utf8
        guard bytes[index...].starts(with: expected) else { return false }
        index += expected.count
        return true
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// Skips JSON's insignificant whitespace: space, tab, line feed and carriage return.
    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
            UInt8(ascii: "e"), UInt8(ascii: "E"):
            true
        default:
            false
        }
    }
}
