import Foundation
import FoyerAPI
import FoyerClient
import FoyerStackProcesses
import Testing

/// How many calls the gateway makes to the services for each account-lifecycle operation, read from its own
/// `foyer_rpc_client_calls_total` around the operation: the hops are the main cost of every operation, so they are
/// held to their targets here and cannot creep back unnoticed (docs/DECISIONS.md, "The account lifecycle").
@Suite("Calls per operation, counted by the gateway (SQLite)")
struct CallCountTests {
    /// The calls `operation` made from the gateway, by "upstream/method".
    private static func counted(
        _ stack: RunningStack,
        _ operation: () async throws -> Void
    ) async throws -> [String: Double] {
        try await MetricsScrape.clientCalls(port: stack.processes.metricsPort(of: .gateway), around: operation)
    }

    @Test("link-or-merge ≤ 5 calls, delete-everything ≤ 5, a link and a sign-out ≤ 3")
    func lifecycle() async throws {
        try await withRunningStack(RunningStackOptions(metrics: true)) { stack async throws in
            let account = try await makeAccount(stack, keys: ["a1", "a2"])
            try await stack.withClient { client async throws in
                _ = try await client.signInAsGuest()
                for key in ["g1", "g2"] { try await client.put("notes", key, "guest \(key)") }
                let merge = try await Self.counted(stack) {
                    let result = try await client.link(email: account.email, password: password, onConflict: .merge)
                    let session = result.session
                    #expect(result.outcome == .merged && session?.uid == account.uid)
                }
                #expect(merge.values.reduce(0, +) <= 5, "link-or-merge made \(merge)")
                // The first call is identity's link (token, credential, ticket and merge in one), the last its finish.
                #expect(merge["identity/link"] == 1 && merge["identity/finishMerge"] == 1, "\(merge)")
            }
            try await stack.withClient { client async throws in
                _ = try await client.signInAsGuest()
                try await client.put("notes", "doomed", "soon gone")
                let deletion = try await Self.counted(stack) {
                    let deleted = try await client.deleteAccount()
                    #expect(deleted == 1)
                }
                #expect(deletion.values.reduce(0, +) <= 5, "delete-everything made \(deletion)")
                // A guest has no Sign in with Apple token to revoke: no such step.
                #expect(deletion.keys.allSatisfy { !$0.contains("Apple") }, "\(deletion)")
            }
            try await stack.withClient { client async throws in
                _ = try await client.signInAsGuest()
                try await client.put("notes", "kept", "kept")
                let link = try await Self.counted(stack) {
                    _ = try await client.link(email: uniqueEmail("count"), password: password)
                }
                // identity's link, guest-quota's plan change, the answer kept.
                #expect(link.values.reduce(0, +) <= 3, "a link made \(link)")
                let signOut = try await Self.counted(stack) { _ = try await client.signOut() }
                #expect(signOut.values.reduce(0, +) <= 2, "a member's sign-out made \(signOut)")
            }
        }
    }
}
