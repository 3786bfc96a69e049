/// Unpadded base64url (RFC 4648 §5), as used by JWS, JWK and JWT.
///
/// Decoding is strict so that every byte string has exactly one accepted encoding: padding (`=`), whitespace,
/// characters outside `A–Z a–z 0–9 - _`, impossible lengths (a remainder of 1 modulo 4) and non-zero trailing
/// bits in the last character are all rejected with ``Base64URLError/invalidText``.
///
/// Swift alone (no C library, no other module), so the client builds wherever Swift does; `FoyerCrypto`'s
/// `Base64URL` is this one with its errors as `FoyerCryptoError`.
public enum Base64URL {
    /// The default cap on the encoded length accepted by ``decode(_:maxEncodedLength:)``: 1 MiB of text.
    public static let defaultMaxEncodedLength = 1 << 20

    private static let alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8
    )

    /// Marks bytes outside the alphabet in ``decodingTable``.
    private static let invalid: UInt8 = 0xFF

    /// Maps an ASCII byte to its 6-bit value, or ``invalid``.
    private static let decodingTable: [UInt8] = {
        var table = [UInt8](repeating: invalid, count: 256)
        for (value, character) in alphabet.enumerated() {
            table[Int(character)] = UInt8(value)
        }
        return table
    }()

    /// Encodes `bytes` without padding.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        var output = [UInt8]()
        output.reserveCapacity((input.count * 4 + 2) / 3)
        var index = 0
        while index + 3 <= input.count {
            let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            appendCharacters(of: group, count: 4, to: &output)
            index += 3
        }
        switch input.count - index {
        case 1:
            appendCharacters(of: UInt32(input[index]) << 16, count: 2, to: &output)
        case 2:
            appendCharacters(of: UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8, count: 3, to: &output)
        default:
            break
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes unpadded base64url text.
    ///
    /// - Parameter maxEncodedLength: the longest text (in UTF-8 bytes) accepted; longer input throws
    ///   ``Base64URLError/tooLong`` before any decoding work.
    public static func decode(
        _ string: some StringProtocol,
        maxEncodedLength: Int = defaultMaxEncodedLength
    ) throws(Base64URLError) -> [UInt8] {
        try decode(utf8: string.utf8, maxEncodedLength: maxEncodedLength)
    }

    /// Decodes base64url given as UTF-8 bytes (for example one segment of a compact JWS).
    public static func decode(
        utf8: some Collection<UInt8>,
        maxEncodedLength: Int
    ) throws(Base64URLError) -> [UInt8] {
        let length = utf8.count
        guard length <= maxEncodedLength else {
            throw .tooLong(
                "base64url text of \(length) bytes exceeds the \(maxEncodedLength)-byte cap"
            )
        }
        guard length % 4 != 1 else {
            throw .invalidText("a length of \(length) is impossible for base64url")
        }
        var output = [UInt8]()
        output.reserveCapacity(length / 4 * 3 + 2)
        var accumulator: UInt32 = 0
        var pending = 0
        for character in utf8 {
            let value = decodingTable[Int(character)]
            guard value != invalid else {
                let hex = String(character, radix: 16)
                throw .invalidText("byte 0x\(hex) is not in the base64url alphabet")
            }
            accumulator = accumulator << 6 | UInt32(value)
            pending += 1
            if pending == 4 {
                output.append(UInt8(truncatingIfNeeded: accumulator >> 16))
                output.append(UInt8(truncatingIfNeeded: accumulator >> 8))
                output.append(UInt8(truncatingIfNeeded: accumulator))
                accumulator = 0
                pending = 0
            }
        }
        switch pending {
        case 2:
            // 12 bits carry one byte; the low 4 bits must be zero for the encoding to be canonical.
            guard accumulator & 0x0F == 0 else { throw .invalidText("non-zero trailing bits") }
            output.append(UInt8(truncatingIfNeeded: accumulator >> 4))
        case 3:
            // 18 bits carry two bytes; the low 2 bits must be zero.
            guard accumulator & 0x03 == 0 else { throw .invalidText("non-zero trailing bits") }
            output.append(UInt8(truncatingIfNeeded: accumulator >> 10))
            output.append(UInt8(truncatingIfNeeded: accumulator >> 2))
        default:
            break
        }
        return output
    }

    /// Appends the first `count` 6-bit groups of a 24-bit `group` (most significant first).
    private static func appendCharacters(of group: UInt32, count: Int, to output: inout [UInt8]) {
        for position in 0..<count {
            let shift = UInt32(18 - 6 * position)
            output.append(alphabet[Int(group >> shift & 0x3F)])
        }
    }
}
