import FoyerIdentity
import Testing

@Suite("The signing-key encryption key file")
struct SigningKeyEncryptionKeyTests {
    /// Standard base64 of the bytes 0, 1, ..., 31.
    static let counting = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="
    /// Standard base64 of 16 × (0xFB, 0xFF): every `+` and `/` of the alphabet's end.
    static let symbols = "+//7//v/+//7//v/+//7//v/+//7//v/+//7//v/+/8="

    @Test("32 bytes in standard base64 with padding, with or without one final line feed; the id is the documented one")
    func accepted() throws {
        let plain = try SigningKeyEncryptionKey(fileText: Self.counting)
        let withNewline = try SigningKeyEncryptionKey(fileText: Self.counting + "\n")
        // base64url(SHA-256("foyer identity signing-key encryption key id v1\0" ‖ key)[0..<8]), computed apart.
        #expect(plain.id == "6ID33AS5Ks4")
        #expect(withNewline.id == plain.id)
        #expect(try SigningKeyEncryptionKey(fileText: Self.symbols + "\n").id != plain.id)
    }

    @Test(
        "Anything else is refused with the format in the message",
        arguments: [
            "", "\n", String(counting.dropLast()), counting + "\n\n", counting + "\r\n", " " + counting,
            counting + " ", counting.replacingOccurrences(of: "A", with: "-"),
            symbols.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_"),
            "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8", "AAECAwQFBgcICQoLDA0ODw==",
            counting + counting, "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh=\n",
        ]
    )
    func refused(text: String) {
        do {
            _ = try SigningKeyEncryptionKey(fileText: text)
            Issue.record("accepted \(text.debugDescription)")
        } catch {
            #expect("\(error)".contains("32 random bytes in standard base64"), "\(error)")
            #expect(!"\(error)".contains(Self.counting), "the message never repeats the file")
        }
    }
}
