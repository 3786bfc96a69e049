import Foundation
import FoyerAPI
import FoyerClient
import FoyerStackProcesses
import FoyerTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A crash at each step of link-or-merge and of delete-everything, with the real executables: the gateway killed
/// by a fault point (debug builds, `FOYER_FAULT_KILL_AT`; see docs/DECISIONS.md) right after a step, or the
/// service a step calls killed before the operation starts. Then the crashed service restarts, the client retries
/// with the same operation id, cleanup sweeps (grace 0), and the databases must hold nothing of the deleted or
/// merged user and the account's documents and counters exactly once, and every invariant of docs/INVARIANTS.md
/// must hold (Invariants.swift). FaultTests+Identity.swift kills identity and cleanup in the middle of a step. Every
/// test runs on SQLite and, when `FOYER_TEST_POSTGRES_URL` names one, on PostgreSQL.
@Suite("Kill at each step of merge and delete-everything, on each engine", .serialized, .sharedStackPerEngine)
struct FaultTests {
    static let mergePoints = [
        "merge.afterBeginMerge", "merge.afterUserData", "merge.afterGuestQuota", "merge.afterRecord",
        "merge.afterFinishMerge",
    ]
    static let deletePoints = [
        "delete.afterBeginDelete", "delete.afterRecord", "delete.afterUserData", "delete.afterGuestQuota",
        "delete.afterFinishDelete",
    ]
    /// The services that steps 2–4 call (step 1 and 5 call identity, which the operation needs before it starts).
    static let calledServices: [StackService] = [.userData, .guestQuota, .cleanup]

    @Test("The gateway killed after a step of a merge", arguments: testedEngines, mergePoints)
    func gatewayCrashDuringMerge(engine: TestEngine, point: String) async throws {
        let stack = try SharedStack.get(engine)
        let scenario = try await MergeScenario.prepare(stack)
        try await stack.processes.restart(.gateway, environment: ["FOYER_FAULT_KILL_AT": point])
        _ = await foyerFailure { try await scenario.link() }
        #expect(await stack.processes.waitForExit(of: .gateway) == .signalled(SIGKILL))
        try await stack.processes.restart(.gateway, environment: [:])
        try await scenario.recoverAndCheck()
    }

    @Test("A service killed before its step of a merge", arguments: testedEngines, calledServices)
    func serviceDownDuringMerge(engine: TestEngine, service: StackService) async throws {
        let stack = try SharedStack.get(engine)
        let scenario = try await MergeScenario.prepare(stack)
        #expect(await stack.processes.kill(service) == .signalled(SIGKILL))
        _ = await foyerFailure { try await scenario.link() }
        try await stack.processes.restart(service)
        try await scenario.recoverAndCheck()
    }

    @Test("The gateway killed after a step of delete-everything", arguments: testedEngines, deletePoints)
    func gatewayCrashDuringDeletion(engine: TestEngine, point: String) async throws {
        let stack = try SharedStack.get(engine)
        let scenario = try await DeletionScenario.prepare(stack)
        try await stack.processes.restart(.gateway, environment: ["FOYER_FAULT_KILL_AT": point])
        _ = await foyerFailure { try await scenario.delete() }
        #expect(await stack.processes.waitForExit(of: .gateway) == .signalled(SIGKILL))
        try await stack.processes.restart(.gateway, environment: [:])
        try await scenario.recoverAndCheck()
    }

    @Test("A service killed before its step of delete-everything", arguments: testedEngines, calledServices)
    func serviceDownDuringDeletion(engine: TestEngine, service: StackService) async throws {
        let stack = try SharedStack.get(engine)
        let scenario = try await DeletionScenario.prepare(stack)
        #expect(await stack.processes.kill(service) == .signalled(SIGKILL))
        _ = await foyerFailure { try await scenario.delete() }
        try await stack.processes.restart(service)
        try await scenario.recoverAndCheck()
    }
}

/// An account with notes a1, a2 and a guest with notes g1, g2, g3 about to merge into it.
struct MergeScenario {
    let stack: RunningStack
    let account: (uid: String, email: String)
    let guest: SessionTokens
    let operationID = OperationID.make()
    let recordsBefore: Int

    static func prepare(_ stack: RunningStack) async throws -> MergeScenario {
        let account = try await makeAccount(stack, keys: ["a1", "a2"])
        let guest = try await stack.withClient { client async throws in
            let guest = try await client.signInAsGuest()
            for key in ["g1", "g2", "g3"] { try await client.put("notes", key, "guest \(key)") }
            return guest
        }
        return MergeScenario(
            stack: stack,
            account: account,
            guest: guest,
            recordsBefore: try await stack.databases.deletionRecordCount()
        )
    }

    /// The guest's link-with-merge, always under the same operation id.
    @discardableResult
    func link() async throws -> LinkResult {
        try await stack.withClient(session: guest) { client in
            try await client.link(
                email: account.email,
                password: password,
                onConflict: .merge,
                operationID: operationID
            )
        }
    }

    /// The client's retry succeeds at every step: the gateway finishes the merge the first attempt began (the
    /// guest's session ended at its first step, but a retry of the same operation goes on), or, after the last
    /// step, answers the finished merge, and signs in to the account with the password. Then cleanup sweeps and
    /// finds nothing stuck, and the end state must be one merge, done once.
    func recoverAndCheck(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let retried = try await link()
        #expect(retried.outcome == .merged, sourceLocation: sourceLocation)
        #expect(retried.session?.uid == account.uid, sourceLocation: sourceLocation)
        #expect(
            try await stack.databases.state(of: guest.uid) == nil,
            "the retry left the merge unfinished",
            sourceLocation: sourceLocation
        )
        let report = try await stack.sweep()
        #expect(report.errors == 0, "\(report)\n\(stack.logs())", sourceLocation: sourceLocation)
        #expect(report.stuckFinished == 0, "the retry should have finished the merge", sourceLocation: sourceLocation)

        let databases = stack.databases
        let records = try await databases.mergeRecords(from: guest.uid)
        #expect(
            records.userData == 1 && records.guestQuota == 1,
            "merged twice? \(records)",
            sourceLocation: sourceLocation
        )
        try await expectGone(guest.uid, stack, sourceLocation: sourceLocation)
        let merged = ["notes/a1", "notes/a2", "notes/g1", "notes/g2", "notes/g3"]
        let keys = try await databases.documentKeys(of: account.uid)
        #expect(keys == merged, sourceLocation: sourceLocation)
        #expect(try await databases.counter("documents", of: account.uid) == 5, sourceLocation: sourceLocation)
        #expect(try await databases.state(of: account.uid) == "active", sourceLocation: sourceLocation)
        #expect(try await databases.deletionRecordCount() == recordsBefore + 1, sourceLocation: sourceLocation)
        #expect(try await databases.claimCount() == 0, sourceLocation: sourceLocation)
        // The account works: it signs in and reads the guest's documents.
        try await stack.withClient { client async throws in
            #expect(try await client.signIn(email: account.email, password: password).uid == account.uid)
            #expect(try await client.get("notes", "g2")?.text == "guest g2", sourceLocation: sourceLocation)
        }
        try await expectInvariants(
            stack,
            InvariantScope(deleted: [guest.uid], exactCounters: true),
            sourceLocation: sourceLocation
        )
    }
}

/// A member with three documents about to delete everything.
struct DeletionScenario {
    let stack: RunningStack
    let account: (uid: String, email: String)
    let session: SessionTokens
    let operationID = OperationID.make()
    let recordsBefore: Int

    static func prepare(_ stack: RunningStack) async throws -> DeletionScenario {
        let account = try await makeAccount(stack, keys: ["d1", "d2", "d3"])
        let session = try await stack.withClient { client async throws in
            try await client.signIn(email: account.email, password: password)
        }
        return DeletionScenario(
            stack: stack,
            account: account,
            session: session,
            recordsBefore: try await stack.databases.deletionRecordCount()
        )
    }

    @discardableResult
    func delete() async throws -> UInt64 {
        try await stack.withClient(session: session) { client in
            try await client.deleteAccount(operationID: operationID)
        }
    }

    /// The client's retry succeeds at every step: it finishes the deletion (its session was revoked by the first
    /// step, but the gateway lets a retry of the same operation go on), or, after the last step, is told it is done.
    /// Then cleanup's sweep finds nothing stuck.
    func recoverAndCheck(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        #expect(try await delete() <= 3, sourceLocation: sourceLocation)
        #expect(
            try await stack.databases.state(of: account.uid) == nil,
            "the retry left the deletion unfinished",
            sourceLocation: sourceLocation
        )
        let report = try await stack.sweep()
        #expect(report.errors == 0, "\(report)\n\(stack.logs())", sourceLocation: sourceLocation)
        #expect(
            report.stuckFinished == 0,
            "the retry should have finished the deletion",
            sourceLocation: sourceLocation
        )

        try await expectGone(account.uid, emails: [account.email], stack, sourceLocation: sourceLocation)
        #expect(try await stack.databases.deletionRecordCount() == recordsBefore + 1, sourceLocation: sourceLocation)
        #expect(try await stack.databases.claimCount() == 0, sourceLocation: sourceLocation)
        try await stack.withClient { client async throws in
            let error = await foyerFailure { try await client.signIn(email: account.email, password: password) }
            #expect(error == .invalidCredentials, sourceLocation: sourceLocation)
        }
        try await expectInvariants(
            stack,
            InvariantScope(deleted: [account.uid], exactCounters: true),
            sourceLocation: sourceLocation
        )
    }
}
