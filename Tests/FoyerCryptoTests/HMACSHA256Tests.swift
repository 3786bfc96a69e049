import FoyerCrypto
import Testing

@Suite("HMAC-SHA-256")
struct HMACSHA256Tests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let key: [UInt8]
        let message: [UInt8]
        let expected: [UInt8]
        var testDescription: String { name }
    }

    /// RFC 4231 §4; test case 5 (truncated output) does not apply to a full-length API.
    static let rfc4231: [Vector] = [
        Vector(
            name: "RFC 4231 test case 1",
            key: [UInt8](repeating: 0x0B, count: 20),
            message: bytes("Hi There"),
            expected: hex("b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        ),
        Vector(
            name: "RFC 4231 test case 2",
            key: bytes("Jefe"),
            message: bytes("what do ya want for nothing?"),
            expected: hex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        ),
        Vector(
            name: "RFC 4231 test case 3",
            key: [UInt8](repeating: 0xAA, count: 20),
            message: [UInt8](repeating: 0xDD, count: 50),
            expected: hex("773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe")
        ),
        Vector(
            name: "RFC 4231 test case 4",
            key: Array(1...25),
            message: [UInt8](repeating: 0xCD, count: 50),
            expected: hex("82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b")
        ),
        Vector(
            name: "RFC 4231 test case 6",
            key: [UInt8](repeating: 0xAA, count: 131),
            message: bytes("Test Using Larger Than Block-Size Key - Hash Key First"),
            expected: hex("60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
        ),
        Vector(
            name: "RFC 4231 test case 7",
            key: [UInt8](repeating: 0xAA, count: 131),
            message: bytes(
                "This is a test using a larger than block-size key and a larger than block-size data. "
                    + "The key needs to be hashed before being used by the HMAC algorithm."
            ),
            expected: hex("9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2")
        ),
    ]

    @Test("RFC 4231 known answers", arguments: rfc4231)
    func authenticationCodeMatchesRFC4231(vector: Vector) {
        #expect(HMACSHA256.authenticationCode(key: vector.key, message: vector.message) == vector.expected)
        #expect(HMACSHA256.isValidAuthenticationCode(vector.expected, key: vector.key, message: vector.message))
    }

    @Test("Empty key and empty message are valid inputs")
    func emptyKeyAndMessageProduceTheKnownCode() {
        let code = HMACSHA256.authenticationCode(key: [UInt8](), message: [UInt8]())
        #expect(code == hex("b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad"))
    }

    @Test("Validation rejects a changed, truncated or extended code")
    func validationRejectsAlteredCodes() {
        let key = bytes("key")
        let message = bytes("message")
        let code = HMACSHA256.authenticationCode(key: key, message: message)
        #expect(code.count == HMACSHA256.byteCount)
        #expect(!HMACSHA256.isValidAuthenticationCode(flippingBit(in: code, at: 31), key: key, message: message))
        #expect(!HMACSHA256.isValidAuthenticationCode(code.dropLast(), key: key, message: message))
        #expect(!HMACSHA256.isValidAuthenticationCode(code + [0], key: key, message: message))
        #expect(!HMACSHA256.isValidAuthenticationCode(code, key: key, message: bytes("messagE")))
    }
}
