import FoyerCrypto
import Testing

@Suite("Base64URL")
struct Base64URLTests {
    /// RFC 4648 §10 test vectors, without padding.
    static let rfc4648: [(String, String)] = [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
        ("foobar", "Zm9vYmFy"),
    ]

    @Test("RFC 4648 §10 vectors encode and decode without padding", arguments: rfc4648)
    func rfc4648VectorsRoundTrip(plain: String, encoded: String) throws {
        #expect(Base64URL.encode(bytes(plain)) == encoded)
        #expect(try Base64URL.decode(encoded) == bytes(plain))
    }

    @Test("The URL-safe alphabet uses - and _ instead of + and /")
    func urlSafeAlphabetIsUsed() throws {
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64URL.encode([0xFB, 0xEF, 0xBE]) == "----")
        #expect(Base64URL.encode([0xFF, 0xFF, 0xFF]) == "____")
        #expect(try Base64URL.decode("-_8") == [0xFB, 0xFF])
        #expect(try Base64URL.decode(Substring("xx____")[...].dropFirst(2)) == [0xFF, 0xFF, 0xFF])
    }

    @Test("Every length from 0 to 64 bytes round-trips")
    func randomBytesRoundTrip() throws {
        for length in 0...64 {
            let data = SecureRandom.bytes(count: length)
            let encoded = Base64URL.encode(data)
            #expect(!encoded.contains("="))
            #expect(try Base64URL.decode(encoded) == data)
        }
    }

    static let invalidEncodings: [(String, String)] = [
        ("Zg==", "padding"),
        ("Zm8=", "padding"),
        ("Zm9v\n", "trailing newline"),
        (" Zm9v", "leading space"),
        ("Zm 9v", "inner space"),
        ("Zm9v+w", "standard-alphabet plus"),
        ("Zm9/", "standard-alphabet slash"),
        ("Zm9vé", "non-ASCII character"),
        ("Zm9v\0", "NUL byte"),
        ("Z", "impossible length 1"),
        ("Zm9vY", "impossible length 5"),
        ("Zh", "non-zero trailing bits after one byte"),
        ("Zm9", "non-zero trailing bits after two bytes"),
    ]

    @Test("Strict decoding rejects non-canonical or foreign text", arguments: invalidEncodings)
    func strictDecodingRejects(text: String, reason: String) {
        #expect(throws: FoyerCryptoError.invalidBase64URL, "\(reason)") {
            try Base64URL.decode(text)
        }
    }

    @Test("Text longer than the cap is refused before decoding")
    func lengthCapIsEnforced() throws {
        #expect(throws: FoyerCryptoError.inputTooLarge) {
            try Base64URL.decode("AAAAAAAA", maxEncodedLength: 4)
        }
        #expect(throws: FoyerCryptoError.inputTooLarge) {
            try Base64URL.decode(String(repeating: "!", count: Base64URL.defaultMaxEncodedLength + 1))
        }
        #expect(try Base64URL.decode("AAAA", maxEncodedLength: 4) == [0, 0, 0])
    }
}
