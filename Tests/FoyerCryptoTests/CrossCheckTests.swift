import Foundation
import FoyerCrypto
import Testing

/// Checks FoyerCrypto against an independent implementation: Python's `cryptography` package, driven by
/// `crosscheck.py` next to this file, with JSON over stdin and stdout.
@Suite("Cross-check with Python's cryptography package")
struct CrossCheckTests {
    private static let installHint = "run `make deps` to install python3 and its `cryptography` package"

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

        struct HMACInput: Encodable {
            var key: String
            var message: String
        }

        var swiftJWT: SwiftJWT
        var payload: String
        var scrypt: ScryptInput
        var hmac: HMACInput
    }

    private struct Response: Decodable {
        var swiftTokenValid: Bool
        var swiftTamperedTokenRejected: Bool
        var jwks: JWKSet
        var tokens: [String: String]
        var scrypt: String
        var hmac: String
    }

    @Test("Python verifies Swift's EdDSA JWT, Swift verifies Python's EdDSA/RS256/ES256 JWTs, scrypt and HMAC agree")
    func implementationsAgree() throws {
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
            hmac: .init(key: Base64URL.encode(hmacKey), message: Base64URL.encode(hmacMessage))
        )
        let response = try JSONDecoder().decode(Response.self, from: runScript(input: JSONEncoder().encode(request)))

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
        let code = HMACSHA256.authenticationCode(key: hmacKey, message: hmacMessage)
        #expect(Base64URL.encode(code) == response.hmac, "HMAC-SHA-256 differs from Python's")
    }

    /// Runs `crosscheck.py` with `input` on stdin and returns its stdout. Throws, failing the test (never
    /// skipping it), when python3 or the `cryptography` package is missing.
    private func runScript(input: Data) throws -> Data {
        let python = try #require(
            Self.locateExecutable("python3"),
            "python3 was not found on PATH; \(Self.installHint)"
        )
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("crosscheck.py")
        try #require(FileManager.default.fileExists(atPath: script.path), "missing \(script.path)")

        // stdin and stderr go through temporary files so that neither side can block on a full pipe.
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("foyer-crosscheck-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let inputFile = scratch.appendingPathComponent("request.json")
        let errorFile = scratch.appendingPathComponent("stderr.txt")
        try input.write(to: inputFile)
        try Data().write(to: errorFile)
        let inputHandle = try FileHandle(forReadingFrom: inputFile)
        defer { try? inputHandle.close() }
        let errorHandle = try FileHandle(forWritingTo: errorFile)
        defer { try? errorHandle.close() }

        let process = Process()
        let output = Pipe()
        process.executableURL = python
        process.arguments = [script.path]
        process.standardInput = inputHandle
        process.standardOutput = output
        process.standardError = errorHandle
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        try process.run()
        let pid = process.processIdentifier
        DispatchQueue.global().async {
            if exited.wait(timeout: .now() + .seconds(120)) == .timedOut { kill(pid, SIGKILL) }
        }
        let stdout = try output.fileHandleForReading.readToEnd() ?? Data()
        process.waitUntilExit()

        let stderr = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
        switch (process.terminationReason, process.terminationStatus) {
        case (.exit, 0):
            return stdout
        case (.exit, 3):
            throw ScriptFailure(
                description: "the Python package `cryptography` is missing; \(Self.installHint). Python said: \(stderr)"
            )
        case (let reason, let status):
            let how = reason == .exit ? "exit status" : "signal"
            throw ScriptFailure(description: "crosscheck.py failed (\(how) \(status)): \(stderr)")
        }
    }

    /// Fails the test with a message that says what to fix.
    private struct ScriptFailure: Error, CustomStringConvertible {
        var description: String
    }

    private static func locateExecutable(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) {
                return candidate
            }
        }
        return nil
    }
}
