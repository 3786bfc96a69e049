import FoyerAPI
import FoyerClient
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import Testing

/// identity's per-source limits see the client's address: the gateway passes it with password and email-link calls.
@Suite("identity's per-source limits through the gateway")
struct IdentitySourceLimitTests {
    @Test("Password checks from one client are budgeted by its address (identity's default: 10 at once)")
    func passwordBudgetSeesTheClient() async throws {
        try await withStack { stack in
            try await stack.withClient { client in
                // Distinct addresses, so the failed-password limit per address is not what answers.
                for _ in 0..<10 {
                    await expectError(.invalidCredentials) {
                        try await client.signIn(email: uniqueEmail(), password: "a wrong guess")
                    }
                }
                let refused = await expectError(.tooManyAttempts) {
                    try await client.signIn(email: uniqueEmail(), password: "a wrong guess")
                }
                #expect(refused?.retryAfter == .seconds(6))
            }
        }
    }
}
