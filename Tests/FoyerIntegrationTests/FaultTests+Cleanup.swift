import FoyerClient
import FoyerStackProcesses
import FoyerTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// cleanup killed by a fault point in the middle of its inactivity clean-up, which runs the same steps as
/// delete-everything (AccountSagas, batched): restarted disarmed, its first sweep once the dead process's claim
/// has expired must finish the deletion (recovery of the stuck guest, grace 0) and leave nothing of the guest.
extension FaultTests {
    @Test("cleanup killed after a step of deleting an expired guest", arguments: testedEngines, deletePoints)
    func cleanupCrashDuringExpiry(engine: TestEngine, point: String) async throws {
        let stack = try SharedStack.get(engine)
        // Given a guest with documents
        let guest = try await stack.withClient { client async throws in
            let guest = try await client.signInAsGuest()
            for key in ["t1", "t2"] { try await client.put("notes", key, "idle \(key)") }
            return guest.uid
        }
        let recordsBefore = try await stack.databases.deletionRecordCount()
        let defaults = stack.processes.configuration.environment[.cleanup] ?? [:]
        try await stack.processes.restart(
            .cleanup,
            environment: defaults.merging(["FOYER_FAULT_KILL_AT": point]) { $1 }
        )

        // When it has been idle past the TTL (30 days) and cleanup dies at `point` of its sweep
        try stack.setClockOffset(seconds: RunningStack.offset(stack.clockFile) + 31 * 86_400)
        _ = try? await stack.sweep()
        #expect(
            await stack.processes.waitForExit(of: .cleanup) == .signalled(SIGKILL),
            "cleanup did not reach \(point)"
        )

        // Then cleanup, restarted, finishes the deletion on its first sweep after the dead process's claim on the
        // guest expired (a claim nobody renews keeps other replicas away for the claim lifetime, 30 s)
        try await stack.processes.restart(.cleanup, environment: defaults)
        try stack.setClockOffset(seconds: RunningStack.offset(stack.clockFile) + 31)
        let report = try await stack.sweep()
        #expect(report.errors == 0, "\(report)\n\(stack.logs())")
        #expect(try await stack.databases.state(of: guest) == nil, "the sweep left the deletion unfinished")
        try await expectGone(guest, stack)
        #expect(try await stack.databases.deletionRecordCount() == recordsBefore + 1)
        #expect(try await stack.databases.claimCount() == 0)
        try await expectInvariants(stack, InvariantScope(deleted: [guest], exactCounters: true))
    }
}
