import FoyerAPI
import FoyerClient
import FoyerTestSupport
import Testing

/// identity's per-source limits in the deployed shape: the setting comes from the environment of the `identity`
/// executable, and the client's address reaches identity through the `gateway` executable.
@Suite("identity's per-source limits through the real executables")
struct IdentityAbuseLimitTests {
    @Test("FOYER_PASSWORD_HASH_BURST_PER_SOURCE=2: the third password check from this client must wait")
    func passwordBudgetFromEnvironment() async throws {
        var options = RunningStackOptions()
        options.environment = [
            .identity: [
                "FOYER_PASSWORD_HASH_BURST_PER_SOURCE": "2",
                "FOYER_PASSWORD_HASHES_PER_SOURCE_PER_MINUTE": "1",
            ]
        ]
        try await withRunningStack(options) { stack in
            try await stack.withClient { client in
                var statuses: [String] = []
                var retryAfter: Duration?
                for index in 0..<3 {
                    do {
                        _ = try await client.signIn(email: uniqueEmail("budget\(index)"), password: "a wrong guess")
                        statuses.append("signed in")
                    } catch let error as FoyerError {
                        statuses.append(error.name)
                        retryAfter = error.retryAfter
                    }
                }
                #expect(statuses == ["invalid-credentials", "invalid-credentials", "too-many-attempts"])
                // The wait to the next unit: up to a minute (the real clock has moved a little since the last one).
                #expect(retryAfter.map { $0 > .zero && $0 <= .seconds(60) } == true)
            }
        }
    }
}
