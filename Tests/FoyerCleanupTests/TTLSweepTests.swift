import FoyerAPI
import FoyerCleanup
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import Testing

@Suite("TTL clean-up")
struct TTLSweepTests {
    @Test(
        "A guest idle past the TTL is deleted with its documents, counters, sessions and rows; a recently active guest, a member and a guest mid-merge stay",
        arguments: TestEngine.allCases
    )
    func sweepsOnlyIdleGuests(engine: TestEngine) async throws {
        try await withCluster(engine) { cluster in
            // Given
            let idle = try await cluster.newGuest(documents: 3)
            let recent = try await cluster.newGuest(documents: 1)
            let member = try await cluster.newMember(email: "member@example.com", documents: [("m", "member note")])
            let account = try await cluster.newMember(email: "account@example.com")
            let merging = try await cluster.newGuest(documents: 2)
            try await cluster.beginMerge(merging, intoAccountWith: "account@example.com", operationID: "merge-1")
            #expect(try await cluster.traces(of: idle.uid)["ud_documents"] == 3)
            cluster.advance(days: 31)
            _ = try await cluster.identity.call(IdentityMethods.recordActivity, IdentityUserRequest(uid: recent.uid))

            try await cluster.withCleanup(configure: { $0.recoveryGrace = .seconds(60 * 86_400) }) { cleanup in
                // When
                let report = try await cleanup.sweep()

                // Then
                #expect(report.expiredGuests == 1)
                #expect(report.errors == 0, "\(report.lastError)")
                #expect(report.stuckFinished == 0)
                #expect(!report.dryRun)

                #expect(try await cluster.state(of: idle.uid) == nil)
                #expect(try await cluster.documentCount(idle.uid) == 0)
                #expect(try await cluster.documentsUsed(idle.uid) == 0)
                #expect(await !cluster.canRefresh(idle))
                #expect(try await cluster.traces(of: idle.uid).isEmpty)

                #expect(try await cluster.state(of: recent.uid) == .active)
                #expect(try await cluster.documentCount(recent.uid) == 1)
                #expect(try await cluster.state(of: member) == .active)
                #expect(try await cluster.documentCount(member) == 1)
                #expect(try await cluster.state(of: merging.uid) == .merging)
                #expect(try await cluster.documentCount(merging.uid) == 2)

                let records = try await cleanup.deletions()
                #expect(records.count == 1)
                #expect(records.first?.reason == .ttl)
                #expect(records.first?.deletedAtMilliseconds == UInt64(cluster.clock.date.timeIntervalSince1970 * 1000))

                // A second sweep finds nothing more.
                let again = try await cleanup.sweep()
                #expect(again.expiredGuests == 0 && again.errors == 0 && again.skipped == 0)
            }
        }
    }

    @Test("A dry run counts what a sweep would do and changes nothing; status reports the last real sweep")
    func dryRunAndStatus() async throws {
        try await withCluster(.sqlite) { cluster in
            let guests =
                [
                    try await cluster.newGuest(documents: 1), try await cluster.newGuest(),
                    try await cluster.newGuest(),
                ] as [TestGuest]
            let stuck = try await cluster.newGuest(documents: 1)
            _ = try await cluster.identity.call(
                IdentityMethods.beginDelete,
                BeginDeleteRequest(uid: stuck.uid, operationID: "gateway-delete-7")
            )
            cluster.advance(days: 30, seconds: 1)

            try await cluster.withCleanup { cleanup in
                let before = try await cleanup.status()
                #expect(before == CleanupStatusResponse(running: false, lastSweep: nil))

                let dry = try await cleanup.sweep(dryRun: true)
                #expect(dry.dryRun)
                #expect(dry.expiredGuests == 3)
                #expect(dry.stuckFinished == 1)
                #expect(dry.errors == 0)
                for guest in guests { #expect(try await cluster.state(of: guest.uid) == .active) }
                #expect(try await cluster.state(of: stuck.uid) == .deleting)
                #expect(try await cluster.documentCount(guests[0].uid) == 1)
                #expect(try await cleanup.deletions().isEmpty)
                #expect(try await cleanup.status().lastSweep == nil, "a dry run is not the last sweep")

                let startedAt = UInt64(cluster.clock.date.timeIntervalSince1970 * 1000)
                let report = try await cleanup.sweep()
                #expect(report.expiredGuests == 3 && report.stuckFinished == 1 && report.errors == 0)
                #expect(report.startedAtMilliseconds == startedAt)
                #expect(report.finishedAtMilliseconds >= report.startedAtMilliseconds)
                #expect(report.lastError.isEmpty)

                let status = try await cleanup.status()
                #expect(!status.running)
                #expect(status.lastSweep == report)
                #expect(await cleanup.service.status() == status)

                _ = try await cleanup.sweep(dryRun: true)
                #expect(try await cleanup.status().lastSweep == report)
            }
        }
    }

    @Test("A sweep deletes at most batchSize × pagesPerSweep expired guests; the next sweep goes on")
    func boundedPages() async throws {
        try await withCluster(.sqlite) { cluster in
            var guests: [TestGuest] = []
            for _ in 0..<7 { guests.append(try await cluster.newGuest()) }
            cluster.advance(days: 31)
            try await cluster.withCleanup(configure: {
                $0.batchSize = 2
                $0.pagesPerSweep = 2
            }) { cleanup in
                let first = try await cleanup.sweep()
                #expect(first.expiredGuests == 4)
                let second = try await cleanup.sweep()
                #expect(second.expiredGuests == 3)
                for guest in guests { #expect(try await cluster.state(of: guest.uid) == nil) }
                #expect(try await cleanup.deletions().count == 7)
            }
        }
    }
}
