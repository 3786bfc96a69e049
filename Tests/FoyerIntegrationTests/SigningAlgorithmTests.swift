import Foundation
import FoyerClient
import FoyerCrypto
import FoyerStackProcesses
import FoyerTestSupport
import SQLKit
import Testing

/// Access tokens of each algorithm identity signs with (`--signing-algorithm`), through the real executables: each
/// verifies with two outside verifiers that know only the discovery document (`Tests/http/verifiers.py`: PyJWT and
/// joserfc), the gateway refuses `none`, HMAC and a swapped `alg`, and a change of algorithm is a rotation that keeps
/// every session alive.
@Suite("Signing algorithms through the real executables")
struct SigningAlgorithmTests {
    private static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("http").appendingPathComponent("verifiers.py")
    /// The issuer both identity and the gateway use when none is given.
    private static let issuer = "http://127.0.0.1:7480"

    private struct Verified: Decodable {
        struct Token: Decodable {
            var alg: String
            var kid: String
            var sub: String
        }

        var passed: Bool
        var algorithms: [String]
        var tokens: [Token]
    }

    private static var cases: [(JWSAlgorithm, TestEngine)] {
        JWSAlgorithm.allCases.map { ($0, .sqlite) }
            + (postgresConfigured ? [(.es256, .postgres), (.rs256, .postgres)] : [])
    }

    private static var engines: [TestEngine] { postgresConfigured ? [.sqlite, .postgres] : [.sqlite] }

    private static func options(_ engine: TestEngine, _ algorithm: JWSAlgorithm) -> RunningStackOptions {
        var options = RunningStackOptions()
        options.engine = engine
        options.gatewayHTTP = true
        options.environment = [.identity: ["FOYER_SIGNING_ALGORITHM": algorithm.rawValue]]
        return options
    }

    /// Runs the verifiers on `tokens` against the stack's HTTP API, tolerating the stack's clock offset.
    private static func verify(_ tokens: [String], _ stack: RunningStack, leeway: Int = 0) async throws -> Verified {
        let output = try await PythonScript.run(
            script,
            arguments: [stack.httpBaseURL, "--issuer", issuer, "--leeway", "\(leeway)"],
            input: JSONEncoder().encode(["tokens": tokens]),
            missingPackages: [3: "run `make deps` to install PyJWT, cryptography and joserfc"]
        )
        return try JSONDecoder().decode(Verified.self, from: output)
    }

    @Test(
        "a token of each algorithm verifies with PyJWT and joserfc through the discovery document; forgeries are refused",
        arguments: cases
    )
    func tokensVerifyOutside(algorithm: JWSAlgorithm, engine: TestEngine) async throws {
        try await withRunningStack(Self.options(engine, algorithm)) { stack in
            try await stack.withClient { client in
                let session = try await client.signInAsGuest()
                #expect(try JWT.decode(session.accessToken).algorithm == algorithm)
                let verified = try await Self.verify([session.accessToken], stack)
                #expect(verified.passed && verified.algorithms == [algorithm.rawValue])
                #expect(verified.tokens.map(\.alg) == [algorithm.rawValue])
                #expect(verified.tokens.map(\.sub) == [session.uid])
            }
        }
    }

    @Test(
        "EdDSA to ES256 by restarting identity: old tokens verify until they expire, refresh works, new tokens are ES256",
        arguments: engines
    )
    func rotationToES256(engine: TestEngine) async throws {
        try await withRunningStack(Self.options(engine, .edDSA)) { stack in
            try await stack.withClient { client in
                let before = try await client.signInAsGuest()
                try await client.put("notes", "before", "signed with EdDSA")
                let oldKeyID = try #require(try JWT.decode(before.accessToken).keyID)

                try await stack.processes.restart(.identity, environment: ["FOYER_SIGNING_ALGORITHM": "ES256"])
                let algorithms = try await Self.storedAlgorithms(stack)
                #expect(algorithms.sorted { $0.0 < $1.0 }.map(\.1).sorted() == ["ES256", "EdDSA"])

                // Until the new key's activation delay (120 s) has passed, the EdDSA key goes on signing.
                let early = try await client.refreshSession()
                #expect(try JWT.decode(early.accessToken).keyID == oldKeyID)

                try stack.setClockOffset(seconds: 121)
                let after = try await client.refreshSession()
                let decoded = try JWT.decode(after.accessToken)
                #expect(decoded.algorithm == .es256 && decoded.keyID != oldKeyID)
                #expect(after.uid == before.uid && after.sessionID == before.sessionID)
                try await client.put("notes", "after", "signed with ES256")

                // The EdDSA token of before the change has not expired: the gateway and both outside verifiers still
                // accept it beside the new one, and the discovery document lists both algorithms.
                let verified = try await Self.verify([before.accessToken, after.accessToken], stack, leeway: 150)
                #expect(verified.passed && Set(verified.algorithms) == ["EdDSA", "ES256"])
                #expect(verified.tokens.map(\.alg) == ["EdDSA", "ES256"])
                let text = try await stack.withClient(session: before) { old in
                    try await old.get("notes", "before")?.text
                }
                #expect(text == "signed with EdDSA")
            }
        }
    }

    /// `(kid, algorithm)` of every stored signing key.
    private static func storedAlgorithms(_ stack: RunningStack) async throws -> [(String, String)] {
        try await stack.databases.identity.withConnection { sql in
            try await sql.raw("SELECT kid, algorithm FROM identity_signing_keys").all().map {
                (try $0.decode(column: "kid", as: String.self), try $0.decode(column: "algorithm", as: String.self))
            }
        }
    }
}
