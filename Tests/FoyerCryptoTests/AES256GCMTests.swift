import FoyerCrypto
import Testing

@Suite("AES-256-GCM")
struct AES256GCMTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let key: [UInt8]
        let nonce: [UInt8]
        let plaintext: [UInt8]
        let associatedData: [UInt8]
        let ciphertext: [UInt8]
        let tag: [UInt8]
        var testDescription: String { name }
    }

    /// The 256-bit test cases of McGrew and Viega, "The Galois/Counter Mode of Operation (GCM)", the document NIST's
    /// SP 800-38D refers to (test cases 13, 14 and 16: empty, one block without associated data, and a partial
    /// last block with associated data).
    static let vectors: [Vector] = [
        Vector(
            name: "GCM test case 13",
            key: [UInt8](repeating: 0, count: 32),
            nonce: [UInt8](repeating: 0, count: 12),
            plaintext: [],
            associatedData: [],
            ciphertext: [],
            tag: hex("530f8afbc74536b9a963b4f1c4cb738b")
        ),
        Vector(
            name: "GCM test case 14",
            key: [UInt8](repeating: 0, count: 32),
            nonce: [UInt8](repeating: 0, count: 12),
            plaintext: [UInt8](repeating: 0, count: 16),
            associatedData: [],
            ciphertext: hex("cea7403d4d606b6e074ec5d3baf39d18"),
            tag: hex("d0d1c8a799996bf0265b98b5d48ab919")
        ),
        Vector(
            name: "GCM test case 16",
            key: hex("feffe9928665731c6d6a8f9467308308 feffe9928665731c6d6a8f9467308308"),
            nonce: hex("cafebabefacedbaddecaf888"),
            plaintext: hex(
                """
                d9313225f88406e5a55909c5aff5269a 86a7a9531534f7da2e4c303d8a318a72
                1c3c0c95956809532fcf0e2449a6b525 b16aedf5aa0de657ba637b39
                """
            ),
            associatedData: hex("feedfacedeadbeeffeedfacedeadbeef abaddad2"),
            ciphertext: hex(
                """
                522dc1f099567d07f47f37a32a84427d 643a8cdcbfe5c0c97598a2bd2555d1aa
                8cb08e48590dbb3da7b08b1056828838 c5f61e6393ba7a0abcc9f662
                """
            ),
            tag: hex("76fc6ece0f4e1768cddf8853bb2d551b")
        ),
    ]

    @Test(
        "Published known answers: seal gives the ciphertext and tag, open gives the plaintext back",
        arguments: vectors
    )
    func knownAnswers(vector: Vector) throws {
        let box = try AES256GCM.seal(
            vector.plaintext,
            key: vector.key,
            nonce: vector.nonce,
            associatedData: vector.associatedData
        )
        #expect(box.ciphertext == vector.ciphertext)
        #expect(box.tag == vector.tag)
        #expect(box.combined == vector.nonce + vector.ciphertext + vector.tag)
        let published = try AES256GCM.SealedBox(nonce: vector.nonce, ciphertext: vector.ciphertext, tag: vector.tag)
        #expect(
            try AES256GCM.open(published, key: vector.key, associatedData: vector.associatedData) == vector.plaintext
        )
    }

    @Test("A changed bit anywhere in the nonce, ciphertext, tag or associated data, or another key, is refused")
    func tamperingIsRefused() throws {
        let vector = Self.vectors[2]
        let combined = vector.nonce + vector.ciphertext + vector.tag
        for index in [0, 11, 12, 40, combined.count - 16, combined.count - 1] {
            let changed = try AES256GCM.SealedBox(combined: flippingBit(in: combined, at: index))
            #expect(throws: FoyerCryptoError.authenticationFailed, "byte \(index)") {
                try AES256GCM.open(changed, key: vector.key, associatedData: vector.associatedData)
            }
        }
        let box = try AES256GCM.SealedBox(combined: combined)
        for associatedData in [flippingBit(in: vector.associatedData, at: 0), [], vector.associatedData + [0]] {
            #expect(throws: FoyerCryptoError.authenticationFailed) {
                try AES256GCM.open(box, key: vector.key, associatedData: associatedData)
            }
        }
        #expect(throws: FoyerCryptoError.authenticationFailed) {
            try AES256GCM.open(box, key: flippingBit(in: vector.key, at: 31), associatedData: vector.associatedData)
        }
        let shortened = try AES256GCM.SealedBox(
            nonce: vector.nonce,
            ciphertext: Array(vector.ciphertext.dropLast()),
            tag: vector.tag
        )
        #expect(throws: FoyerCryptoError.authenticationFailed) {
            try AES256GCM.open(shortened, key: vector.key, associatedData: vector.associatedData)
        }
    }

    @Test("Each seal draws a fresh nonce; the box reads back from its combined bytes")
    func freshNonces() throws {
        let key = SecureRandom.bytes(count: 32)
        let secret = SecureRandom.bytes(count: 32)
        let first = try AES256GCM.seal(secret, key: key, associatedData: bytes("kid-1"))
        let second = try AES256GCM.seal(secret, key: key, associatedData: bytes("kid-1"))
        #expect(first.nonce != second.nonce && first.ciphertext != second.ciphertext)
        #expect(first.combined.count == 12 + 32 + 16)
        let reread = try AES256GCM.SealedBox(combined: first.combined)
        #expect(reread == first)
        #expect(try AES256GCM.open(reread, key: key, associatedData: bytes("kid-1")) == secret)
    }

    @Test("Wrong sizes are refused before any work: key, nonce, tag, a box shorter than nonce and tag")
    func sizes() {
        #expect(throws: FoyerCryptoError.invalidKey) { try AES256GCM.seal([1], key: [UInt8](repeating: 0, count: 16)) }
        #expect(throws: FoyerCryptoError.invalidParameters) {
            try AES256GCM.seal([1], key: [UInt8](repeating: 0, count: 32), nonce: [0, 0, 0, 0, 0, 0, 0, 0])
        }
        #expect(throws: FoyerCryptoError.invalidParameters) {
            try AES256GCM.SealedBox(nonce: [UInt8](repeating: 0, count: 12), ciphertext: [], tag: [0, 0, 0, 0])
        }
        #expect(throws: FoyerCryptoError.invalidParameters) {
            try AES256GCM.SealedBox(combined: [UInt8](repeating: 0, count: 27))
        }
        #expect(throws: FoyerCryptoError.inputTooLarge) {
            try AES256GCM.seal(
                [UInt8](repeating: 0, count: AES256GCM.messageByteCountMax + 1),
                key: [UInt8](repeating: 0, count: 32)
            )
        }
    }
}
