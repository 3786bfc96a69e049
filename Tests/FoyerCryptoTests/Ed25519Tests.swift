import FoyerCrypto
import Testing

@Suite("Ed25519")
struct Ed25519Tests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let secretKey: [UInt8]
        let publicKey: [UInt8]
        let message: [UInt8]
        let signature: [UInt8]
        var testDescription: String { name }
    }

    /// RFC 8032 §7.1, tests 1-3.
    static let rfc8032: [Vector] = [
        Vector(
            name: "RFC 8032 test 1 (empty message)",
            secretKey: hex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"),
            publicKey: hex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"),
            message: [],
            signature: hex(
                """
                e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155
                5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b
                """
            )
        ),
        Vector(
            name: "RFC 8032 test 2 (one byte)",
            secretKey: hex("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb"),
            publicKey: hex("3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c"),
            message: hex("72"),
            signature: hex(
                """
                92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da
                085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00
                """
            )
        ),
        Vector(
            name: "RFC 8032 test 3 (two bytes)",
            secretKey: hex("c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7"),
            publicKey: hex("fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025"),
            message: hex("af82"),
            signature: hex(
                """
                6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac
                18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a
                """
            )
        ),
    ]

    @Test("RFC 8032 public keys derive from the secret keys", arguments: rfc8032)
    func publicKeyDerivesFromSecret(vector: Vector) throws {
        let key = try Ed25519PrivateKey(rawRepresentation: vector.secretKey)
        #expect(key.publicKey.rawRepresentation == vector.publicKey)
        #expect(key.rawRepresentation == vector.secretKey)
    }

    @Test("RFC 8032 signatures are reproduced exactly and verify", arguments: rfc8032)
    func signatureMatchesRFC8032(vector: Vector) throws {
        let key = try Ed25519PrivateKey(rawRepresentation: vector.secretKey)
        #expect(try key.signature(for: vector.message) == vector.signature)
        let publicKey = try Ed25519PublicKey(rawRepresentation: vector.publicKey)
        #expect(publicKey.isValidSignature(vector.signature, for: vector.message))
    }

    @Test("Tampered messages and signatures do not verify", arguments: rfc8032)
    func tamperedInputsDoNotVerify(vector: Vector) throws {
        let publicKey = try Ed25519PublicKey(rawRepresentation: vector.publicKey)
        #expect(!publicKey.isValidSignature(flippingBit(in: vector.signature, at: 0), for: vector.message))
        #expect(!publicKey.isValidSignature(flippingBit(in: vector.signature, at: 63), for: vector.message))
        #expect(!publicKey.isValidSignature(vector.signature, for: vector.message + [0]))
        #expect(!publicKey.isValidSignature(vector.signature.dropLast(), for: vector.message))
        #expect(!publicKey.isValidSignature(vector.signature + [0], for: vector.message))
        #expect(!publicKey.isValidSignature([UInt8](), for: vector.message))
    }

    @Test("Generated keys are distinct, restorable and sign verifiably")
    func generatedKeysWork() throws {
        let first = Ed25519PrivateKey()
        let second = Ed25519PrivateKey()
        #expect(first.rawRepresentation != second.rawRepresentation)
        #expect(first.publicKey != second.publicKey)
        let restored = try Ed25519PrivateKey(rawRepresentation: first.rawRepresentation)
        #expect(restored.publicKey == first.publicKey)
        let message = bytes("sign me")
        let signature = try first.signature(for: message)
        #expect(first.publicKey.isValidSignature(signature, for: message))
        #expect(!second.publicKey.isValidSignature(signature, for: message))
    }

    @Test("One key signs and verifies from many tasks at once")
    func keyIsUsableConcurrently() async throws {
        let key = Ed25519PrivateKey()
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<64 {
                group.addTask {
                    let message = bytes("message \(index)")
                    return key.publicKey.isValidSignature(try key.signature(for: message), for: message)
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 64 && results.allSatisfy { $0 })
    }

    @Test("Keys of the wrong size are rejected", arguments: [0, 31, 33, 64])
    func wrongKeySizesAreRejected(size: Int) {
        #expect(throws: FoyerCryptoError.invalidKey) {
            try Ed25519PrivateKey(rawRepresentation: [UInt8](repeating: 1, count: size))
        }
        #expect(throws: FoyerCryptoError.invalidKey) {
            try Ed25519PublicKey(rawRepresentation: [UInt8](repeating: 1, count: size))
        }
    }
}
