import FoyerStackProcesses
import FoyerTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// identity killed by its own fault points (`identity.*`, docs/DECISIONS.md) right after the transaction of a step
/// commits and before its answer leaves: the step is done, but the caller is told nothing. The retry with the same
/// operation id, or cleanup's recovery, must finish the operation exactly once.
extension FaultTests {
    static let identityMergePoints = ["identity.afterBeginMerge", "identity.afterFinishMerge"]
    static let identityDeletePoints = ["identity.afterBeginDelete", "identity.afterFinishDelete"]

    @Test(
        "identity killed after a step of a merge commits; the client retries",
        arguments: testedEngines,
        identityMergePoints
    )
    func identityCrashDuringMerge(engine: TestEngine, point: String) async throws {
        let stack = try SharedStack.get(engine)
        let scenario = try await MergeScenario.prepare(stack)
        try await crashIdentity(stack, at: point) { _ = await foyerFailure { try await scenario.link() } }
        try await scenario.recoverAndCheck()
    }

    @Test(
        "identity killed after a step of delete-everything commits; the client retries",
        arguments: testedEngines,
        identityDeletePoints
    )
    func identityCrashDuringDeletion(engine: TestEngine, point: String) async throws {
        let stack = try SharedStack.get(engine)
        let scenario = try await DeletionScenario.prepare(stack)
        try await crashIdentity(stack, at: point) { _ = await foyerFailure { try await scenario.delete() } }
        try await scenario.recoverAndCheck()
    }

    @Test(
        "identity killed after beginMerge commits; cleanup finishes the merge before the client retries",
        arguments: testedEngines
    )
    func identityCrashThenRecoveredMerge(engine: TestEngine) async throws {
        let stack = try SharedStack.get(engine)
        let scenario = try await MergeScenario.prepare(stack)
        try await crashIdentity(stack, at: "identity.afterBeginMerge") {
            _ = await foyerFailure { try await scenario.link() }
        }
        let report = try await stack.sweep()
        #expect(report.errors == 0, "\(report)\n\(stack.logs())")
        #expect(report.stuckFinished == 1)
        #expect(try await stack.databases.state(of: scenario.guest.uid) == nil)
        try await scenario.recoverAndCheck()
    }

    @Test(
        "identity killed after beginDelete commits; cleanup finishes the deletion before the client retries",
        arguments: testedEngines
    )
    func identityCrashThenRecoveredDeletion(engine: TestEngine) async throws {
        let stack = try SharedStack.get(engine)
        let scenario = try await DeletionScenario.prepare(stack)
        try await crashIdentity(stack, at: "identity.afterBeginDelete") {
            _ = await foyerFailure { try await scenario.delete() }
        }
        let report = try await stack.sweep()
        #expect(report.errors == 0, "\(report)\n\(stack.logs())")
        #expect(report.stuckFinished == 1)
        #expect(try await stack.databases.state(of: scenario.account.uid) == nil)
        try await scenario.recoverAndCheck()
    }

    /// Restarts identity with `point` armed, runs `operation` (which must reach it), requires identity to have
    /// killed itself, and restarts it disarmed.
    private func crashIdentity(
        _ stack: RunningStack,
        at point: String,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ operation: () async throws -> Void
    ) async throws {
        let defaults = stack.processes.configuration.environment[.identity] ?? [:]
        try await stack.processes.restart(
            .identity,
            environment: defaults.merging(["FOYER_FAULT_KILL_AT": point]) { $1 }
        )
        try await operation()
        #expect(
            await stack.processes.waitForExit(of: .identity) == .signalled(SIGKILL),
            "identity did not reach \(point)",
            sourceLocation: sourceLocation
        )
        try await stack.processes.restart(.identity, environment: defaults)
    }
}
