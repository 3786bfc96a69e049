import FoyerWire
import Testing

@Suite("String(validatingUTF8Bytes:)")
struct StringValidatingUTF8BytesTests {
    static let samples: [[UInt8]] = [
        [],
        Array("plain ASCII".utf8),
        Array("héllo, 世界, 🙂".utf8),
        [0xEF, 0xBF, 0xBD],  // U+FFFD itself is valid
        [0xFF],  // never valid
        [0x61, 0x80],  // a lone continuation byte
        [0xE4, 0xB8],  // a sequence cut short
        [0xC0, 0x80],  // an overlong NUL
        [0xED, 0xA0, 0x80],  // a UTF-16 surrogate
        [0xF4, 0x90, 0x80, 0x80],  // above U+10FFFF
    ]

    @Test("agrees with the standard library's String(validating:as:) on valid and invalid bytes", arguments: samples)
    func agreesWithStandardLibrary(bytes: [UInt8]) {
        #expect(String(validatingUTF8Bytes: bytes) == String(validating: bytes, as: UTF8.self))
    }

    @Test("refuses invalid bytes, keeps valid ones")
    func refusesInvalid() {
        #expect(String(validatingUTF8Bytes: [0x61, 0xFF, 0x62]) == nil)
        #expect(String(validatingUTF8Bytes: Array("ok ✓".utf8)) == "ok ✓")
    }
}
