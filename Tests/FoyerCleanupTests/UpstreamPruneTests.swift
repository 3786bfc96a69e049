import FoyerAPI
import FoyerCleanup
import FoyerRPC
import FoyerStorage
import FoyerTestSupport
import FoyerWire
import Testing

@Suite("Sweeps make user-data and guest-quota prune what still names a user that is gone")
struct UpstreamPruneTests {
    @Test(
        "Merge records and deletion tombstones stay through the retention and are gone from every database after it",
        arguments: TestEngine.allCases
    )
    func prunedBySweep(engine: TestEngine) async throws {
        try await withCluster(engine) { cluster in
            // Given a guest merged into an account and a user deleted, both finished by cleanup's recovery.
            let account = try await cluster.newMember(email: "kept@example.com", documents: [("a", "account a")])
            let merged = try await cluster.newGuest(documents: 2)
            try await cluster.beginMerge(merged, intoAccountWith: "kept@example.com", operationID: "merge-op")
            let deleted = try await cluster.newGuest(documents: 1)
            _ = try await cluster.identity.call(
                IdentityMethods.beginDelete,
                BeginDeleteRequest(uid: deleted.uid, operationID: "delete-op")
            )
            cluster.advance(seconds: 61)

            try await cluster.withCleanup { cleanup in
                let report = try await cleanup.sweep()
                #expect(report.stuckFinished == 2 && report.errors == 0, "\(report)")

                // Then, within the retentions, user-data and guest-quota keep what makes retries safe: the merge's
                // op rows (both uids) and the deleted user's tombstone.
                #expect(try await leftovers(of: merged.uid, cluster).keys.sorted() == ["gq_merges", "ud_merge_ops"])
                #expect(try await leftovers(of: deleted.uid, cluster).keys.sorted() == ["ud_deleted_uids"])
                cluster.advance(days: 6)
                _ = try await cleanup.sweep()
                #expect(try await leftovers(of: merged.uid, cluster).keys.sorted() == ["gq_merges", "ud_merge_ops"])

                // When the retentions have passed (7 days for merges, a day for tombstones), a sweep prunes them.
                cluster.advance(days: 1, seconds: 1)
                let late = try await cleanup.sweep()
                #expect(late.errors == 0, "\(late)")

                // Then nothing in any table of any service holds either uid.
                for uid in [merged.uid, deleted.uid] {
                    #expect(try await leftovers(of: uid, cluster).isEmpty)
                }
                #expect(try await cluster.noteKeys(account) == ["a", "n0", "n1"])
                #expect(try await cluster.documentsUsed(account) == 3)
            }
        }
    }

    /// Rows of every table of identity, guest-quota, user-data and cleanup that hold `uid`.
    private func leftovers(of uid: String, _ cluster: CleanupCluster) async throws -> [String: Int] {
        var found: [String: Int] = [:]
        for database in [
            cluster.identityDatabase, cluster.guestQuotaDatabase, cluster.userDataDatabase, cluster.cleanupDatabase,
        ] {
            found.merge(try await Leftovers.find(LeftoverNeedles(uid: uid), in: database)) { $0 + $1 }
        }
        return found
    }
}
