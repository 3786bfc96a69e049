import Foundation
import FoyerCrypto
import FoyerTestSupport
import Testing

/// Checks FoyerCrypto against an independent implementation: Python's `cryptography` package, driven by
/// `crosscheck.py` next to this file, with JSON over stdin and stdout.
@Suite("Cross-check with Python's cryptography package")
struct CrossCheckTests {
    private static let installHint =
        "run `make deps` to install python3 and its `cryptography` and `argon2-cffi` packages"

    private struct Request: Encodable {
        struct SwiftJWT: Encodable {
            var token: String
            var publicKey: String
        }

        struct ScryptInput: Encodable {
            var password: String
            var salt: String
            var logN: UInt8
            var r: UInt32
            var p: UInt32
            var length: Int
        }

        struct Argon2Input: Encodable {
            var password: String
            var salt: String
            var memoryKiB: UInt32
            var iterations: UInt32
            var parallelism: UInt32
            var length: Int
        }

        struct HMACInput: Encodable {
            var key: String
            var message: String
        }

        var swiftJWT: SwiftJWT
        var payload: String
        var scrypt: ScryptInput
        var argon2id: Argon2Input
        var hmac: HMACInput
    }

    private struct Response: Decodable {
        var swiftTokenValid: Bool
        var swiftTamperedTokenRejected: Bool
        var jwks: JWKSet
        var tokens: [String: String]
        var scrypt: String
        var argon2id: String
        var hmac: String
    }

    @Test(
        "Python verifies Swift's EdDSA JWT, Swift verifies Python's EdDSA/RS256/ES256 JWTs, scrypt, Argon2id and HMAC agree"
    )
    func implementationsAgree() async throws {
        let signingKey = Ed25519PrivateKey()
        let signer = JWTSigner(privateKey: signingKey, keyID: "swift-1")
        let swiftToken = try signer.sign(claims: JWTClaims(issuer: "foyer", subject: "account-7", audience: ["python"]))
        let pythonPayload = bytes(#"{"iss":"crosscheck.py","sub":"python"}"#)
        let password = SecureRandom.bytes(count: 20)
        let salt = SecureRandom.bytes(count: 16)
        let hmacKey = SecureRandom.bytes(count: 100)
        let hmacMessage = SecureRandom.bytes(count: 1000)
        // The one use of the interactive preset (N = 2^17, 128 MiB) in the whole test suite.
        let parameters = ScryptParameters.interactive

        let request = Request(
            swiftJWT: .init(token: swiftToken, publicKey: Base64URL.encode(signingKey.publicKey.rawRepresentation)),
            payload: Base64URL.encode(pythonPayload),
            scrypt: .init(
                password: Base64URL.encode(password),
                salt: Base64URL.encode(salt),
                logN: parameters.logN,
                r: parameters.r,
                p: parameters.p,
                length: 32
            ),
            argon2id: .init(
                password: Base64URL.encode(password),
                salt: Base64URL.encode(salt),
                memoryKiB: Argon2Parameters.interactive.memoryKiB,
                iterations: Argon2Parameters.interactive.iterations,
                parallelism: Argon2Parameters.interactive.parallelism,
                length: 32
            ),
            hmac: .init(key: Base64URL.encode(hmacKey), message: Base64URL.encode(hmacMessage))
        )
        let response = try JSONDecoder().decode(
            Response.self,
            from: await runScript(input: JSONEncoder().encode(request))
        )

        #expect(response.swiftTokenValid, "Python rejected the EdDSA JWT signed by Swift")
        #expect(response.swiftTamperedTokenRejected, "Python accepted a tampered copy of Swift's JWT")

        let verifier = JWTVerifier(keySet: response.jwks)
        for algorithm in JWSAlgorithm.allCases {
            let token = try #require(response.tokens[algorithm.rawValue], "Python sent no \(algorithm) token")
            let verified = try verifier.verify(token)
            #expect(verified.header.algorithm == algorithm)
            #expect(verified.payload == pythonPayload)
            #expect(try verified.registeredClaims().subject == "python")

            let parts = token.split(separator: ".").map(String.init)
            let badSignature = Base64URL.encode(flippingBit(in: base64URL(parts[2]), at: 20))
            #expect(throws: FoyerCryptoError.signatureVerificationFailed, "tampered \(algorithm) signature") {
                try verifier.verify(parts[0] + "." + parts[1] + "." + badSignature)
            }
            let otherPayload = Base64URL.encode(bytes(#"{"iss":"crosscheck.py","sub":"root"}"#))
            #expect(throws: FoyerCryptoError.signatureVerificationFailed, "tampered \(algorithm) payload") {
                try verifier.verify(parts[0] + "." + otherPayload + "." + parts[2])
            }
        }

        let derived = try Scrypt.deriveKey(password: password, salt: salt, parameters: parameters, outputByteCount: 32)
        #expect(Base64URL.encode(derived) == response.scrypt, "scrypt differs from Python's")
        let argon2 = try Argon2id.deriveKey(password: password, salt: salt, parameters: .interactive)
        #expect(Base64URL.encode(argon2) == response.argon2id, "Argon2id differs from argon2-cffi's")
        let code = HMACSHA256.authenticationCode(key: hmacKey, message: hmacMessage)
        #expect(Base64URL.encode(code) == response.hmac, "HMAC-SHA-256 differs from Python's")
    }

    /// Runs `crosscheck.py` with `input` on stdin and returns its stdout, waiting on a dispatch thread rather than
    /// one of the test pool's. Throws, failing the test (never skipping it), when python3 or the `cryptography`
    /// package is missing.
    private func runScript(input: Data) async throws -> Data {
        try await PythonScript.run(
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("crosscheck.py"),
            input: input,
            missingPackages: [3: Self.installHint]
        )
    }
}
