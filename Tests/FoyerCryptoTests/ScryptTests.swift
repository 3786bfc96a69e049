import FoyerCrypto
import Testing

@Suite("scrypt")
struct ScryptTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let password: String
        let salt: String
        let logN: UInt8
        let r: UInt32
        let p: UInt32
        let expected: [UInt8]
        var testDescription: String { "RFC 7914 N=2^\(logN) r=\(r) p=\(p)" }
    }

    /// RFC 7914 §12 (the N = 2^20 vector is left out to keep the suite fast).
    static let rfc7914: [Vector] = [
        Vector(
            password: "",
            salt: "",
            logN: 4,
            r: 1,
            p: 1,
            expected: hex(
                """
                77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442\
                fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906
                """
            )
        ),
        Vector(
            password: "password",
            salt: "NaCl",
            logN: 10,
            r: 8,
            p: 16,
            expected: hex(
                """
                fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b373162\
                2eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640
                """
            )
        ),
        Vector(
            password: "pleaseletmein",
            salt: "SodiumChloride",
            logN: 14,
            r: 8,
            p: 1,
            expected: hex(
                """
                7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2\
                d5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887
                """
            )
        ),
    ]

    @Test("RFC 7914 §12 known answers", arguments: rfc7914)
    func deriveKeyMatchesRFC7914(vector: Vector) throws {
        let parameters = ScryptParameters(logN: vector.logN, r: vector.r, p: vector.p, maxMemoryBytes: 32 << 20)
        let key = try Scrypt.deriveKey(
            password: bytes(vector.password),
            salt: bytes(vector.salt),
            parameters: parameters,
            outputByteCount: 64
        )
        #expect(key == vector.expected)
    }

    @Test("The interactive preset needs about 128 MiB and fits its own ceiling")
    func interactivePresetIsConsistent() throws {
        let interactive = ScryptParameters.interactive
        #expect(interactive.logN == 17 && interactive.r == 8 && interactive.p == 1)
        let required = try #require(interactive.requiredMemoryBytes)
        #expect(required == 128 * 8 * (131_072 + 2) + 128 * 8)
        try interactive.validate()
    }

    @Test("A ceiling below the memory the parameters need fails cleanly, without deriving")
    func tooSmallMemoryCeilingThrows() {
        var parameters = ScryptParameters.interactive
        parameters.maxMemoryBytes = 64 << 20
        #expect(throws: FoyerCryptoError.memoryLimitExceeded) {
            try Scrypt.deriveKey(password: bytes("pw"), salt: bytes("salt"), parameters: parameters)
        }
    }

    static let outOfBounds: [ScryptParameters] = [
        ScryptParameters(logN: 0, r: 8, p: 1, maxMemoryBytes: 1 << 30),
        ScryptParameters(logN: 31, r: 8, p: 1, maxMemoryBytes: .max),
        ScryptParameters(logN: 10, r: 0, p: 1, maxMemoryBytes: 1 << 30),
        ScryptParameters(logN: 10, r: 257, p: 1, maxMemoryBytes: 1 << 30),
        ScryptParameters(logN: 10, r: 8, p: 0, maxMemoryBytes: 1 << 30),
        ScryptParameters(logN: 10, r: 8, p: 65, maxMemoryBytes: 1 << 30),
        ScryptParameters(logN: 16, r: 1, p: 1, maxMemoryBytes: 1 << 30),
        ScryptParameters(logN: 10, r: 8, p: 1, maxMemoryBytes: 0),
        ScryptParameters(logN: 10, r: 8, p: 1, maxMemoryBytes: -1),
    ]

    @Test("Parameters outside the documented bounds are refused", arguments: outOfBounds)
    func outOfBoundsParametersThrow(parameters: ScryptParameters) {
        #expect(throws: FoyerCryptoError.invalidParameters) {
            try Scrypt.deriveKey(password: bytes("pw"), salt: bytes("salt"), parameters: parameters)
        }
    }

    @Test("Over-long passwords and salts and bad output lengths are refused")
    func inputLimitsAreEnforced() throws {
        let cheap = ScryptParameters(logN: 4, r: 1, p: 1, maxMemoryBytes: 1 << 20)
        let limit = Scrypt.maximumPasswordByteCount
        #expect(throws: FoyerCryptoError.inputTooLarge) {
            try Scrypt.deriveKey(
                password: [UInt8](repeating: 0x61, count: limit + 1),
                salt: [UInt8](),
                parameters: cheap
            )
        }
        #expect(throws: FoyerCryptoError.inputTooLarge) {
            try Scrypt.deriveKey(
                password: [UInt8](),
                salt: [UInt8](repeating: 0x61, count: Scrypt.maximumSaltByteCount + 1),
                parameters: cheap
            )
        }
        for outputByteCount in [0, -1, Scrypt.outputByteCountRange.upperBound + 1] {
            #expect(throws: FoyerCryptoError.invalidParameters) {
                try Scrypt.deriveKey(
                    password: [UInt8](),
                    salt: [UInt8](),
                    parameters: cheap,
                    outputByteCount: outputByteCount
                )
            }
        }
        let longest = try Scrypt.deriveKey(
            password: [UInt8](repeating: 0x61, count: limit),
            salt: bytes("salt"),
            parameters: cheap
        )
        #expect(longest.count == 32)
    }
}
