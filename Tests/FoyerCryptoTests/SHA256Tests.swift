import FoyerCrypto
import Testing

@Suite("SHA-256")
struct SHA256Tests {
    @Test("FIPS 180 one-block message \"abc\"")
    func hashOfABCMatchesFIPS180Example() {
        #expect(SHA256.hash(bytes("abc")) == hex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"))
    }

    @Test("FIPS 180 two-block message")
    func hashOfTwoBlockMessageMatchesFIPS180Example() {
        let message = bytes("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
        #expect(SHA256.hash(message) == hex("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"))
    }

    @Test("Empty input")
    func hashOfEmptyInputMatchesKnownDigest() {
        let expected = hex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hash([UInt8]()) == expected)
        #expect(SHA256.hash(UnsafeRawBufferPointer(start: nil, count: 0)) == expected)
    }

    @Test("One million repetitions of \"a\"")
    func hashOfOneMillionAMatchesKnownDigest() {
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(SHA256.hash(message) == hex("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"))
    }

    @Test("Raw buffers, slices and non-contiguous collections hash like arrays")
    func allInputFormsAgree() {
        let message = bytes("The quick brown fox jumps over the lazy dog")
        let expected = hex("d7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592")
        #expect(SHA256.hash(message) == expected)
        #expect(message.withUnsafeBytes { SHA256.hash($0) } == expected)
        #expect(SHA256.hash(([0xFF] + message)[1...]) == expected)
        #expect(SHA256.hash(message.lazy.map { $0 }) == expected)
        #expect(SHA256.byteCount == expected.count)
    }
}
