import Foundation
import FoyerStackProcesses
import Testing

/// The built `identity` executable refuses a provider JWKS file unless test identity providers are allowed, by flag
/// or environment, whatever the build.
@Suite("identity executable: stand-in identity providers")
struct IdentityStartupTests {
    /// Runs `identity` with Apple keys from a JWKS file and `extra` arguments. `--write-jwks` names a file in a
    /// directory that does not exist, so a start that gets past the checks fails right after them instead of
    /// serving: the run ends either way, and the output says which way.
    private func runIdentity(
        _ extra: [String],
        environment extraEnvironment: [String: String] = [:]
    ) throws -> ExecutableRun {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("foyer-idp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let jwks = directory.appendingPathComponent("apple-jwks.json")
        try Data(#"{"keys":[]}"#.utf8).write(to: jwks)

        var environment = ["FOYER_APPLE_AUDIENCES": "com.example.app", "FOYER_APPLE_JWKS_FILE": jwks.path]
        environment.merge(extraEnvironment) { $1 }
        return try ExecutableRun.run(
            "identity",
            ["--write-jwks", directory.appendingPathComponent("missing/jwks.json").path] + extra,
            in: directory,
            environment: environment
        )
    }

    @Test(
        "A JWKS file stops the start without --allow-test-identity-providers (or FOYER_ALLOW_TEST_IDENTITY_PROVIDERS=1)"
    )
    func jwksFileNeedsTheFlag() throws {
        let refused = try runIdentity([])
        #expect(refused.status != 0)
        #expect(refused.output.contains("apple.keys from a JWKS file are for tests only"), "\(refused.output)")

        for allowed in [
            try runIdentity(["--allow-test-identity-providers"]),
            try runIdentity([], environment: ["FOYER_ALLOW_TEST_IDENTITY_PROVIDERS": "1"]),
        ] {
            // Past the check: it failed only at writing the JWKS into the missing directory.
            #expect(!allowed.output.contains("for tests only"), "\(allowed.output)")
            #expect(allowed.output.contains("test identity providers allowed"), "\(allowed.output)")
            #expect(allowed.status != 0)
        }
    }
}
