import FoyerCrypto
import Testing

@Suite("P-256 ES256 verification")
struct P256PublicKeyTests {
    private static var signingInput: [UInt8] {
        bytes(String(JOSEExamples.es256Token.split(separator: ".").prefix(2).joined(separator: ".")))
    }

    private static var signature: [UInt8] {
        base64URL(String(JOSEExamples.es256Token.split(separator: ".")[2]))
    }

    @Test("RFC 7515 A.3 raw r||s signature verifies with the RFC's point")
    func rfc7515SignatureVerifies() throws {
        let key = try JOSEExamples.p256Key()
        #expect(Self.signature.count == 64)
        #expect(key.isValidES256Signature(Self.signature, for: Self.signingInput))
    }

    @Test("Tampered message, r or s does not verify")
    func tamperedInputsDoNotVerify() throws {
        let key = try JOSEExamples.p256Key()
        #expect(!key.isValidES256Signature(Self.signature, for: Self.signingInput.dropLast()))
        #expect(!key.isValidES256Signature(flippingBit(in: Self.signature, at: 5), for: Self.signingInput))
        #expect(!key.isValidES256Signature(flippingBit(in: Self.signature, at: 40), for: Self.signingInput))
        let swapped = Array(Self.signature[32...] + Self.signature[..<32])
        #expect(!key.isValidES256Signature(swapped, for: Self.signingInput))
        #expect(!key.isValidES256Signature([UInt8](repeating: 0, count: 64), for: Self.signingInput))
        #expect(!key.isValidES256Signature([UInt8](repeating: 0xFF, count: 64), for: Self.signingInput))
    }

    @Test("Signatures that are not exactly 64 bytes are rejected", arguments: [0, 32, 63, 65, 70, 72])
    func wrongLengthSignaturesAreRejected(length: Int) throws {
        let key = try JOSEExamples.p256Key()
        let resized = Array((Self.signature + [UInt8](repeating: 0, count: 16)).prefix(length))
        #expect(!key.isValidES256Signature(resized, for: Self.signingInput))
    }

    @Test("A point off the curve is refused")
    func offCurvePointIsRefused() {
        let y = base64URL(JOSEExamples.p256Y)
        #expect(throws: FoyerCryptoError.invalidKey) {
            try P256PublicKey(x: base64URL(JOSEExamples.p256X), y: flippingBit(in: y, at: 31))
        }
        #expect(throws: FoyerCryptoError.invalidKey) {
            try P256PublicKey(x: [UInt8](repeating: 0, count: 32), y: [UInt8](repeating: 0, count: 32))
        }
    }

    @Test("Coordinates not reduced modulo the field prime are refused")
    func unreducedCoordinatesAreRefused() {
        #expect(throws: FoyerCryptoError.invalidKey) {
            try P256PublicKey(x: [UInt8](repeating: 0xFF, count: 32), y: base64URL(JOSEExamples.p256Y))
        }
    }

    @Test("Coordinates that are not 32 bytes are refused", arguments: [(31, 32), (32, 33), (0, 0), (33, 31)])
    func wrongCoordinateSizesAreRefused(xSize: Int, ySize: Int) {
        #expect(throws: FoyerCryptoError.invalidKey) {
            try P256PublicKey(x: [UInt8](repeating: 1, count: xSize), y: [UInt8](repeating: 1, count: ySize))
        }
    }
}
