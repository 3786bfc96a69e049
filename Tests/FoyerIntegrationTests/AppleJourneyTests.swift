import Foundation
import FoyerStackProcesses
import FoyerTestSupport
import Testing

@Suite("Sign in with Apple through the real executables (SQLite)", .sharedStack(.withStandInApple()))
struct AppleJourneyTests {
    @Test("A guest with documents links an Apple ID token: same uid and documents, a member, me lists Apple")
    func link() async throws { try await appleLinkJourney(SharedStack.get()) }

    @Test("A second guest links the same Apple ID: credential-already-in-use with a ticket, merged by the ticket alone")
    func conflictThenMerge() async throws { try await appleConflictJourney(SharedStack.get()) }

    @Test("A fresh token of the same Apple user signs in to the account")
    func signInAgain() async throws { try await appleSignInAgainJourney(SharedStack.get()) }

    @Test("A wrong audience, an expired token and a reused nonce are refused with their statuses")
    func refusals() async throws { try await appleRefusalsJourney(SharedStack.get()) }
}

@Suite(
    "Sign in with Apple through the real executables (PostgreSQL)",
    .enabled(
        if: postgresConfigured,
        "FOYER_TEST_POSTGRES_URL is not set; start one with scripts/throwaway-postgres.sh"
    ),
    .sharedStack(.withStandInApple(engine: .postgres))
)
struct PostgresAppleJourneyTests {
    @Test("link") func link() async throws { try await appleLinkJourney(SharedStack.get()) }
    @Test("conflict, then merge") func conflictThenMerge() async throws {
        try await appleConflictJourney(SharedStack.get())
    }
    @Test("sign in again") func signInAgain() async throws { try await appleSignInAgainJourney(SharedStack.get()) }
    @Test("refusals") func refusals() async throws { try await appleRefusalsJourney(SharedStack.get()) }
}

extension RunningStackOptions {
    /// The test defaults, with identity trusting ``StandInApple`` for the bundle id `appleAudience`: its JWKS is a
    /// file in the data directory (`FOYER_APPLE_JWKS_FILE`) and `https://appleid.apple.com` the allowlisted issuer
    /// (identity's default for Apple).
    static func withStandInApple(engine: TestEngine = .sqlite) -> RunningStackOptions {
        var options = RunningStackOptions(engine: engine)
        options.prepare = { directory in
            let file = directory.appendingPathComponent("apple-jwks.json")
            try Data(try await StandInApple.provider().jwksJSON).write(to: file)
            return [.identity: ["FOYER_APPLE_AUDIENCES": appleAudience, "FOYER_APPLE_JWKS_FILE": file.path]]
        }
        return options
    }
}
