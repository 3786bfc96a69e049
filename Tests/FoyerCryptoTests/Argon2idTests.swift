import FoyerCrypto
import Testing

@Suite("Argon2id")
struct Argon2idTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let password: String
        let salt: String
        let iterations: UInt32
        let memoryKiB: UInt32
        let expected: [UInt8]
        var testDescription: String { "\(password) t=\(iterations) m=\(memoryKiB) KiB" }
    }

    /// The reference implementation's own Argon2id known answers (version 0x13, one lane, 32-byte output).
    static let reference: [Vector] = [
        Vector(
            password: "password",
            salt: "somesalt",
            iterations: 2,
            memoryKiB: 1 << 16,
            expected: hex("09316115d5cf24ed5a15a31a3ba326e5cf32edc24702987c02b6566f61913cf7")
        ),
        Vector(
            password: "password",
            salt: "somesalt",
            iterations: 2,
            memoryKiB: 1 << 8,
            expected: hex("9dfeb910e80bad0311fee20f9c0e2b12c17987b4cac90c2ef54d5b3021c68bfe")
        ),
        Vector(
            password: "password",
            salt: "somesalt",
            iterations: 1,
            memoryKiB: 1 << 16,
            expected: hex("f6a5adc1ba723dddef9b5ac1d464e180fcd9dffc9d1cbf76cca2fed795d9ca98")
        ),
        Vector(
            password: "differentpassword",
            salt: "somesalt",
            iterations: 2,
            memoryKiB: 1 << 16,
            expected: hex("0b84d652cf6b0c4beaef0dfe278ba6a80df6696281d7e0d2891b817d8c458fde")
        ),
    ]

    @Test("the reference implementation's known answers", arguments: reference)
    func deriveKeyMatchesReference(vector: Vector) throws {
        let key = try Argon2id.deriveKey(
            password: bytes(vector.password),
            salt: bytes(vector.salt),
            parameters: Argon2Parameters(memoryKiB: vector.memoryKiB, iterations: vector.iterations, parallelism: 1)
        )
        #expect(key == vector.expected)
    }

    @Test("The interactive preset is OWASP's: 19 MiB, two passes, one lane")
    func interactivePreset() throws {
        let interactive = Argon2Parameters.interactive
        #expect(interactive.memoryKiB == 19_456 && interactive.iterations == 2 && interactive.parallelism == 1)
        #expect(interactive.memoryBytes == 19 << 20)
        try interactive.validate()
    }

    static let outOfBounds: [Argon2Parameters] = [
        Argon2Parameters(memoryKiB: 7, iterations: 2, parallelism: 1),
        Argon2Parameters(memoryKiB: (4 << 20) + 1, iterations: 2, parallelism: 1),
        Argon2Parameters(memoryKiB: 1024, iterations: 0, parallelism: 1),
        Argon2Parameters(memoryKiB: 1024, iterations: 65, parallelism: 1),
        Argon2Parameters(memoryKiB: 1024, iterations: 2, parallelism: 0),
        Argon2Parameters(memoryKiB: 1024, iterations: 2, parallelism: 17),
        Argon2Parameters(memoryKiB: 8, iterations: 2, parallelism: 2),
    ]

    @Test("Parameters outside the documented bounds are refused", arguments: outOfBounds)
    func outOfBoundsParametersThrow(parameters: Argon2Parameters) {
        #expect(throws: FoyerCryptoError.invalidParameters) {
            try Argon2id.deriveKey(password: bytes("pw"), salt: bytes("somesalt"), parameters: parameters)
        }
    }

    @Test("Over-long passwords, short salts and bad output lengths are refused before any work")
    func inputLimitsAreEnforced() throws {
        let cheap = Argon2Parameters(memoryKiB: 8, iterations: 1, parallelism: 1)
        #expect(throws: FoyerCryptoError.inputTooLarge) {
            try Argon2id.deriveKey(
                password: [UInt8](repeating: 0x61, count: Argon2id.maximumPasswordByteCount + 1),
                salt: bytes("somesalt"),
                parameters: cheap
            )
        }
        #expect(throws: FoyerCryptoError.invalidParameters) {
            try Argon2id.deriveKey(password: bytes("pw"), salt: bytes("short"), parameters: cheap)
        }
        for outputByteCount in [0, 3, Argon2id.outputByteCountRange.upperBound + 1] {
            #expect(throws: FoyerCryptoError.invalidParameters) {
                try Argon2id.deriveKey(
                    password: bytes("pw"),
                    salt: bytes("somesalt"),
                    parameters: cheap,
                    outputByteCount: outputByteCount
                )
            }
        }
        let longest = try Argon2id.deriveKey(
            password: [UInt8](repeating: 0x61, count: Argon2id.maximumPasswordByteCount),
            salt: bytes("somesalt"),
            parameters: cheap
        )
        #expect(longest.count == 32)
    }
}
