import Foundation
import FoyerTestSupport
import Testing

/// The guest journey over the gateway's HTTP API, driven by `Tests/http/journey.py`: a client that is not Foyer's
/// (Python's urllib), verifying access tokens with PyJWT through `/.well-known/jwks.json` and checking every
/// answer against `docs/openapi.yaml` (status, content type, body schema). Besides the journey it calls every other
/// operation the document lists, and fails if one was never called, so the document and the server cannot drift
/// apart unnoticed. Afterwards nothing of the account or the merged guest is left in any service's database.
@Suite("The journey over HTTP, from outside (SQLite)", .sharedStack(RunningStackOptions(gatewayHTTP: true)))
struct HTTPJourneyTests {
    /// What the script prints on stdout when the journey passed.
    private struct Summary: Decodable {
        var passed: Bool
        var uid: String
        var email: String
        var mergedGuest: String
    }

    /// `Tests/http/journey.py`, next to this target's folder.
    private static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("http").appendingPathComponent("journey.py")

    @Test(
        "guest, 20 puts, the 21st refused as problem+json, link, accepted, merge, delete-account, old token refused"
    )
    func journey() async throws {
        let stack = try SharedStack.get()
        let output = try await PythonScript.run(
            Self.script,
            arguments: [stack.httpBaseURL],
            input: Data(),
            missingPackages: [3: "run `make deps` to install PyYAML, PyJWT and openapi-spec-validator"],
            timeout: .seconds(300)
        )
        let summary = try JSONDecoder().decode(Summary.self, from: output)
        #expect(summary.passed)
        try await expectGone(summary.uid, emails: [summary.email], stack)
        try await expectGone(summary.mergedGuest, stack)
    }
}
