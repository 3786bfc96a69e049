import FoyerTestSupport
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

/// One running stack per engine, shared by a suite whose tests take the engine as an argument
/// (`arguments: testedEngines`) and read its stack with `try SharedStack.get(engine)`.
struct SharedStacksTrait: SuiteTrait, TestScoping {
    let engines: [TestEngine]

    func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        try await Self.start(engines[...], started: [:], function)
    }

    private static func start(
        _ engines: ArraySlice<TestEngine>,
        started: [TestEngine: RunningStack],
        _ function: @Sendable () async throws -> Void
    ) async throws {
        guard let engine = engines.first else {
            return try await SharedStack.$byEngine.withValue(started) { try await function() }
        }
        try await withRunningStack(RunningStackOptions(engine: engine)) { stack in
            try await start(engines.dropFirst(), started: started.merging([engine: stack]) { $1 }, function)
        }
    }
}

extension Trait where Self == SharedStacksTrait {
    /// The suite's tests share one running stack per engine of `testedEngines`.
    static var sharedStackPerEngine: Self { SharedStacksTrait(engines: testedEngines) }
}

/// The engines the tests run on: SQLite always, PostgreSQL when `FOYER_TEST_POSTGRES_URL` names one.
let testedEngines: [TestEngine] = postgresConfigured ? [.sqlite, .postgres] : [.sqlite]

enum SharedStack {
    @TaskLocal static var current: RunningStack?
    @TaskLocal static var byEngine: [TestEngine: RunningStack] = [:]

    static func get(sourceLocation: SourceLocation = #_sourceLocation) throws -> RunningStack {
        try #require(current, "the suite has no .sharedStack() trait", sourceLocation: sourceLocation)
    }

    static func get(_ engine: TestEngine, sourceLocation: SourceLocation = #_sourceLocation) throws -> RunningStack {
        try #require(byEngine[engine], "the suite has no \(engine) stack", sourceLocation: sourceLocation)
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
