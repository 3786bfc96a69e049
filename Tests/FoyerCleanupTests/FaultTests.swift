import FoyerAPI
import FoyerCleanup
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import Testing

@Suite("Upstream faults")
struct FaultTests {
    @Test(
        "With user-data down the sweep reports unavailable and leaves the guest to recovery; the next sweep finishes it, recorded once",
        arguments: TestEngine.allCases
    )
    func userDataDown(engine: TestEngine) async throws {
        try await withCluster(engine) { cluster in
            // Given
            let guest = try await cluster.newGuest(documents: 2)
            let bystander = try await cluster.newGuest(documents: 1)
            cluster.advance(seconds: 1)
            let next = try await cluster.newGuest(documents: 1)  // idle a second less: listed after `guest`
            cluster.advance(days: 31)
            _ = try await cluster.identity.call(IdentityMethods.recordActivity, IdentityUserRequest(uid: bystander.uid))
            // One guest per page and batch, so the stop at the first unreachable upstream shows exactly.
            try await cluster.withCleanup(configure: {
                $0.batchSize = 1; $0.deletionConcurrency = 1
            }) { cleanup in
                cluster.userDataProcess.stop()

                // When
                let failed = try await cleanup.sweep()

                // Then: the error is reported by status, past identity's point of no return nothing is undone.
                #expect(failed.expiredGuests == 0)
                #expect(failed.errors == 1)
                #expect(failed.lastError.contains("unavailable"), "\(failed.lastError)")
                #expect(!failed.lastError.contains(guest.uid))
                #expect(try await cleanup.status().lastSweep?.errors == 1)
                #expect(try await cluster.state(of: guest.uid) == .deleting)
                #expect(await !cluster.canRefresh(guest))
                #expect(try await cluster.state(of: bystander.uid) == .active)
                #expect(
                    try await cluster.state(of: next.uid) == .active,
                    "the TTL part stops at an unreachable upstream"
                )

                // When: user-data is back and the grace has passed.
                try await cluster.userDataProcess.whileRestarted {
                    cluster.advance(seconds: 61)
                    let report = try await cleanup.sweep()

                    // Then
                    #expect(report.stuckFinished == 1)
                    #expect(report.expiredGuests == 1)
                    #expect(report.errors == 0, "\(report.lastError)")
                    for gone in [guest, next] {
                        #expect(try await cluster.state(of: gone.uid) == nil)
                        #expect(try await cluster.traces(of: gone.uid).isEmpty)
                    }
                    #expect(try await cluster.documentCount(bystander.uid) == 1)
                    let records = try await cleanup.deletions()
                    #expect(records.count == 2)
                    #expect(records.allSatisfy { $0.reason == .ttl })
                }
            }
        }
    }

    @Test(
        "Deleting batches side by side, an unreachable upstream stops the sweep with at most the batches in flight left deleting; the next sweep finishes them"
    )
    func userDataDownWhileDeletingConcurrently() async throws {
        try await withCluster(.sqlite) { cluster in
            var guests: [TestGuest] = []
            for _ in 0..<12 { guests.append(try await cluster.newGuest(documents: 1)) }
            cluster.advance(days: 31)
            try await cluster.withCleanup(configure: { $0.deletionConcurrency = 4 }) { cleanup in
                cluster.userDataProcess.stop()
                let failed = try await cleanup.sweep()
                #expect(failed.expiredGuests == 0)
                // A page of 12 is split into 4 batches of 3, all started at once.
                #expect(failed.errors > 0 && failed.errors % 3 == 0, "\(failed.errors) errors")
                var deleting = 0
                for guest in guests where try await cluster.state(of: guest.uid) == .deleting { deleting += 1 }
                #expect(UInt64(deleting) == failed.errors, "each failed guest is left deleting, no other")

                try await cluster.userDataProcess.whileRestarted {
                    cluster.advance(seconds: 61)
                    let report = try await cleanup.sweep()
                    #expect(report.errors == 0, "\(report.lastError)")
                    #expect(report.stuckFinished == UInt64(deleting))
                    #expect(report.expiredGuests == UInt64(guests.count - deleting))
                    for guest in guests {
                        #expect(try await cluster.state(of: guest.uid) == nil)
                        #expect(try await cluster.traces(of: guest.uid).isEmpty)
                    }
                    #expect(try await cleanup.deletions().count == guests.count)
                }
            }
        }
    }

    @Test("With identity unreachable the sweep reports unavailable, changes nothing, and the server keeps answering")
    func identityDown() async throws {
        try await withCluster(.sqlite) { cluster in
            let guest = try await cluster.newGuest(documents: 1)
            cluster.advance(days: 31)
            cluster.userDataProcess.stop()
            // Nothing listens on user-data's old port now: point cleanup's identity client there.
            try await cluster.withCleanup(configure: { $0.identity.port = cluster.userDataProcess.port }) { cleanup in
                let report = try await cleanup.sweep()
                #expect(report.errors == 2, "listing stuck accounts and listing expired guests")
                #expect(report.lastError.hasPrefix("listing expired guests: unavailable"), "\(report.lastError)")
                let dry = try await cleanup.sweep(dryRun: true)
                #expect(dry.errors == 2)
                #expect(try await cleanup.status().lastSweep == report)
            }
            #expect(try await cluster.state(of: guest.uid) == .active)
        }
    }
}
