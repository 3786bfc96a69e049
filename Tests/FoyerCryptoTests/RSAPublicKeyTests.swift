import FoyerCrypto
import Testing

@Suite("RSA RS256 verification")
struct RSAPublicKeyTests {
    private static var signingInput: [UInt8] {
        bytes(String(JOSEExamples.rs256Token.split(separator: ".").prefix(2).joined(separator: ".")))
    }

    private static var signature: [UInt8] {
        base64URL(String(JOSEExamples.rs256Token.split(separator: ".")[2]))
    }

    @Test("RFC 7515 A.2 signature verifies with the RFC's modulus and exponent")
    func rfc7515SignatureVerifies() throws {
        let key = try JOSEExamples.rsaKey()
        #expect(key.modulusBitCount == 2048)
        #expect(key.isValidPKCS1v15SHA256Signature(Self.signature, for: Self.signingInput))
    }

    @Test("Tampered message or signature, or a wrong-length signature, does not verify")
    func tamperedInputsDoNotVerify() throws {
        let key = try JOSEExamples.rsaKey()
        #expect(!key.isValidPKCS1v15SHA256Signature(Self.signature, for: Self.signingInput + [0x2E]))
        #expect(!key.isValidPKCS1v15SHA256Signature(flippingBit(in: Self.signature, at: 100), for: Self.signingInput))
        #expect(!key.isValidPKCS1v15SHA256Signature(Self.signature.dropLast(), for: Self.signingInput))
        #expect(!key.isValidPKCS1v15SHA256Signature([0] + Self.signature, for: Self.signingInput))
        #expect(!key.isValidPKCS1v15SHA256Signature([UInt8](), for: Self.signingInput))
    }

    @Test("Leading zero bytes in n and e are ignored")
    func leadingZerosAreIgnored() throws {
        let plain = try JOSEExamples.rsaKey()
        let padded = try RSAPublicKey(
            modulus: [0, 0] + base64URL(JOSEExamples.rsaModulus),
            exponent: [0] + base64URL(JOSEExamples.rsaExponent)
        )
        #expect(padded == plain)
        #expect(padded.modulus.first != 0)
        #expect(padded.isValidPKCS1v15SHA256Signature(Self.signature, for: Self.signingInput))
    }

    /// An odd number of exactly `bits` bits (not a real modulus; size checks come first).
    private static func oddNumber(bits: Int) -> [UInt8] {
        guard bits > 0 else { return [] }
        var number = [UInt8](repeating: 0x5A, count: (bits + 7) / 8)
        let topBits = bits % 8 == 0 ? 8 : bits % 8
        number[0] = UInt8(1) << (topBits - 1)
        number[number.count - 1] |= 1
        return number
    }

    @Test("Moduli under 2048 or over 8192 bits are refused", arguments: [0, 512, 1024, 2047, 8193, 16384])
    func outOfRangeModuliAreRefused(bits: Int) {
        #expect(throws: FoyerCryptoError.invalidKey) {
            try RSAPublicKey(modulus: Self.oddNumber(bits: bits), exponent: [0x01, 0x00, 0x01])
        }
    }

    @Test("Moduli of exactly 2048 and 8192 bits are accepted", arguments: [2048, 8192])
    func boundaryModuliAreAccepted(bits: Int) throws {
        let key = try RSAPublicKey(modulus: Self.oddNumber(bits: bits), exponent: [0x01, 0x00, 0x01])
        #expect(key.modulusBitCount == bits)
    }

    @Test("An even modulus is refused")
    func evenModulusIsRefused() {
        var modulus = base64URL(JOSEExamples.rsaModulus)
        modulus[modulus.count - 1] &= 0xFE
        #expect(throws: FoyerCryptoError.invalidKey) {
            try RSAPublicKey(modulus: modulus, exponent: [0x01, 0x00, 0x01])
        }
    }

    @Test(
        "Exponents that are empty, 1, even or over 64 bits are refused",
        arguments: [[], [0], [1], [0, 1], [0x01, 0x00, 0x00], [1, 0, 0, 0, 0, 0, 0, 0, 1]] as [[UInt8]]
    )
    func badExponentsAreRefused(exponent: [UInt8]) {
        #expect(throws: FoyerCryptoError.invalidKey) {
            try RSAPublicKey(modulus: base64URL(JOSEExamples.rsaModulus), exponent: exponent)
        }
    }
}
