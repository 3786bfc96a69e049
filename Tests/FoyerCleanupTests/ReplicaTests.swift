import Foundation
import FoyerAPI
import FoyerCleanup
import FoyerStorage
import FoyerTestSupport
import SQLKit
import Testing

@Suite("Replicas sharing one database")
struct ReplicaTests {
    @Test("Two replicas sweeping at once delete every guest exactly once", arguments: TestEngine.allCases)
    func shareTheWork(engine: TestEngine) async throws {
        try await withCluster(engine) { cluster in
            // Given
            var guests: [TestGuest] = []
            for index in 0..<16 { guests.append(try await cluster.newGuest(documents: index % 3)) }
            cluster.advance(days: 31)
            let small: (inout CleanupConfiguration) -> Void = {
                $0.batchSize = 4
                $0.pagesPerSweep = 10
            }
            try await cluster.withCleanup(replica: "replica-a", configure: small) { first in
                try await cluster.withCleanup(replica: "replica-b", configure: small) { second in
                    // When
                    async let reportA = first.sweep()
                    async let reportB = second.sweep()
                    let reports = try await [reportA, reportB]

                    // Then
                    #expect(reports.map(\.errors) == [0, 0], "\(reports.map(\.lastError))")
                    #expect(reports.map(\.expiredGuests).reduce(0, +) == 16)
                    for guest in guests {
                        #expect(try await cluster.state(of: guest.uid) == nil)
                        #expect(try await cluster.traces(of: guest.uid).isEmpty)
                    }
                    let records = try await first.deletions()
                    #expect(records.count == 16)
                    #expect(Set(records.map(\.pseudonymousID)).count == 16)
                    #expect(records.allSatisfy { $0.reason == .ttl })
                    #expect(try await second.deletions() == records)
                    #expect(try await cluster.claimCount() == 0)
                }
            }
        }
    }

    @Test("Another replica's claim keeps an account away until it goes stale", arguments: TestEngine.allCases)
    func staleClaimsAreTakenOver(engine: TestEngine) async throws {
        try await withCluster(engine) { cluster in
            let guest = try await cluster.newGuest(documents: 1)
            cluster.advance(days: 31)
            try await cluster.withCleanup(configure: { $0.pseudonymKey = testPseudonymKey }) { cleanup in
                // Given: a replica claimed the guest and died.
                let claimedAt = cluster.clock.date
                try await cluster.cleanupDatabase.transaction { sql in
                    try await sql.raw(
                        """
                        INSERT INTO cleanup_claims (subject, replica, claimed_at)
                        VALUES (\(bind: pseudonymousID(of: guest.uid)), 'dead-replica', \(SQLTimestamp(claimedAt)))
                        """
                    ).run()
                }

                // When / Then: while the claim is fresh the guest is skipped.
                let skipped = try await cleanup.sweep()
                #expect(skipped.expiredGuests == 0 && skipped.skipped == 1)
                #expect(try await cluster.state(of: guest.uid) == .active)

                // Once it is older than the claim lifetime, this replica takes it over.
                cluster.advance(seconds: 31)
                let report = try await cleanup.sweep()
                #expect(report.expiredGuests == 1 && report.skipped == 0 && report.errors == 0)
                #expect(try await cluster.state(of: guest.uid) == nil)
                #expect(try await cluster.claimCount() == 0)
            }
        }
    }

    @Test("status answers the newest sweep of any replica, also after a restart", arguments: TestEngine.allCases)
    func statusIsShared(engine: TestEngine) async throws {
        try await withCluster(engine) { cluster in
            let guest = try await cluster.newGuest()
            cluster.advance(days: 31)
            let report = try await cluster.withCleanup(replica: "replica-a") { first in
                try await cluster.withCleanup(replica: "replica-b") { second in
                    #expect(try await second.status().lastSweep == nil)
                    let report = try await first.sweep()
                    #expect(report.expiredGuests == 1)
                    let status = try await second.status()
                    #expect(!status.running)
                    #expect(status.lastSweep == report)
                    return report
                }
            }
            #expect(try await cluster.state(of: guest.uid) == nil)
            try await cluster.withCleanup(replica: "replica-c") { restarted async throws in
                #expect(try await restarted.status().lastSweep == report)
            }
        }
    }
}
