import Foundation
import FoyerTestSupport
import Testing

/// Schemathesis (the version `make deps` pins) with every check against both documents of the real gateway: the
/// client API with a new guest for each test case and the admin API with a bootstrap admin key. Its exceptions, each
/// a rule JSON Schema cannot state, are in Tests/http/schemathesis.toml.
@Suite("Schemathesis, every check, against the gateway's two documents")
struct SchemathesisTests {
    private static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test("docs/openapi.yaml and docs/admin-openapi.yaml: no check fails")
    func bothDocuments() async throws {
        var options = RunningStackOptions()
        options.gatewayHTTP = true
        options.gatewayAdmin = true
        // One guest per test case: a few thousand sign-ups from loopback. And many refused admin keys: its checks of
        // ignored authentication send made-up keys, which the per-address limit would answer 429.
        options.environment[.guestQuota] = ["FOYER_SIGNUPS_PER_HOUR": "1000000"]
        options.environment[.gateway] = ["FOYER_ADMIN_KEY_CHECKS_PER_MINUTE": "1000000"]
        try await withRunningStack(options) { stack in
            let key = try await stack.bootstrapAdminKey()
            let output = try await PythonScript.run(
                Self.repository.appendingPathComponent("Tests/http/schemathesis_check.py"),
                arguments: [
                    Self.repository.appendingPathComponent(".build-python/bin/schemathesis").path,
                    stack.httpBaseURL, stack.adminBaseURL,
                ],
                input: Data((key + "\n").utf8),
                missingPackages: [3: "run `make deps` to install the pinned schemathesis into .build-python"],
                timeout: .seconds(900)
            )
            let result = try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any])
            let runs = result["runs"] as? [[String: Any]] ?? []
            #expect(runs.count == 2)
            for run in runs {
                #expect(
                    run["exitCode"] as? Int == 0,
                    "\(run["document"] ?? "?"):\n\(run["tail"] ?? "")"
                )
            }
        }
    }
}
