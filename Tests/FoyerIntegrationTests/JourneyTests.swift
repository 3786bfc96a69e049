import Testing

/// Shares one stack between the tests of a suite: started before the first, stopped (and checked to exit 0)
/// after the last.
struct SharedStackTrait: SuiteTrait, TestScoping {
    let options: RunningStackOptions

    func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        try await withRunningStack(options) { stack in
            try await SharedStack.$current.withValue(stack) { try await function() }
        }
    }
}

extension Trait where Self == SharedStackTrait {
    /// The suite's tests share one running stack; they read it with `try SharedStack.get()`.
    static func sharedStack(_ options: RunningStackOptions = RunningStackOptions()) -> Self {
        SharedStackTrait(options: options)
    }
}

enum SharedStack {
    @TaskLocal static var current: RunningStack?

    static func get(sourceLocation: SourceLocation = #_sourceLocation) throws -> RunningStack {
        try #require(current, "the suite has no .sharedStack() trait", sourceLocation: sourceLocation)
    }
}

@Suite("Journeys through the real executables (SQLite)", .sharedStack())
struct JourneyTests {
    @Test("A guest writes 20 documents, the 21st is refused with its numbers; linking an email keeps uid and data")
    func guest() async throws { try await guestJourney(SharedStack.get()) }

    @Test("merge: a second guest's documents move into the account and the guest is gone")
    func merge() async throws { try await mergeJourney(SharedStack.get()) }

    @Test("discard: a second guest is deleted with its data; the account is untouched")
    func discard() async throws { try await discardJourney(SharedStack.get()) }

    @Test("fail, then resolve with merge")
    func failThenResolve() async throws { try await failThenResolveJourney(SharedStack.get()) }

    @Test("delete-everything leaves nothing in any service's database")
    func deleteEverything() async throws { try await deleteEverythingJourney(SharedStack.get()) }
}

@Suite(
    "Journeys through the real executables (PostgreSQL)",
    .enabled(
        if: postgresConfigured,
        "FOYER_TEST_POSTGRES_URL is not set; start one with scripts/throwaway-postgres.sh"
    ),
    .sharedStack(RunningStackOptions(engine: .postgres))
)
struct PostgresJourneyTests {
    @Test("guest journey") func guest() async throws { try await guestJourney(SharedStack.get()) }
    @Test("merge") func merge() async throws { try await mergeJourney(SharedStack.get()) }
    @Test("discard") func discard() async throws { try await discardJourney(SharedStack.get()) }
    @Test("fail, then resolve") func failThenResolve() async throws {
        try await failThenResolveJourney(SharedStack.get())
    }
    @Test("delete-everything") func deleteEverything() async throws {
        try await deleteEverythingJourney(SharedStack.get())
    }
}
