import FoyerAPI
import FoyerRPC
import FoyerTestSupport
import FoyerUserData
import FoyerWire
import NIOCore
import Testing

@Suite("merge records name both uids: they go after their retention or with a deletion, and a retry never merges twice")
struct MergeRecordRetentionTests {
    @Test(
        "a finished merge's records are kept for the retention, then pruned; a retry after that moves nothing",
        arguments: TestEngine.allCases
    )
    func prunedAfterRetention(engine: TestEngine) async throws {
        try await withUserData(engine) { data async throws in
            // Given a merge with a conflict, finished
            let guest = testUID()
            let account = testUID()
            for key in ["a", "b"] { try await data.put(guest, "notes", key, "guest \(key)") }
            try await data.put(account, "notes", "a", "account a")
            let report = try await data.merge(guest, into: account, op: "merge-1", policy: .keepBoth)
            #expect(report.moved == 1 && report.keptBoth == 1)
            let merged = try await data.exportAll(account).documents

            // While the records last, a retry answers the report and the guest refuses writes.
            data.clock.advance(by: data.configuration.mergeRecordRetention.seconds - 1)
            #expect(try await data.pruneAll() == 0)
            #expect(try await data.merge(guest, into: account, op: "merge-1", policy: .keepBoth) == report)
            await expectStatus(UserDataStatus.uidMerged) { try await data.put(guest, "notes", "c", "late") }

            // When the retention has passed, the records are pruned: no row names either uid any more.
            data.clock.advance(by: 2)
            #expect(try await data.pruneAll() == 1)
            #expect(try await data.rows("ud_merge_ops") == 0)
            #expect(try await data.rows("ud_merge_conflicts") == 0)
            #expect(try await Leftovers.find(LeftoverNeedles(uid: guest), in: data.database).isEmpty)

            // Then a retry of the merge claims the op again and finds nothing left under the guest: the account's
            // documents are exactly what the first run left.
            let retried = try await data.merge(guest, into: account, op: "merge-1", policy: .keepBoth)
            #expect(retried.moved == 0 && retried.conflicts == 0)
            #expect(try await data.exportAll(account).documents == merged)
        }
    }

    @Test("a merge that never finished is pruned by its start", arguments: TestEngine.allCases)
    func unfinishedMerge(engine: TestEngine) async throws {
        let injection = UserDataConfiguration.FailureInjection(afterBatches: [.merge: 1])
        try await withUserData(
            engine,
            configure: {
                $0.mergeBatchSize = 2; $0.failureInjection = injection
            },
            maxAttempts: 1
        ) { data async throws in
            let guest = testUID()
            let account = testUID()
            for index in 0..<5 { try await data.put(guest, "notes", "g\(index)", "guest \(index)") }
            await expectStatus(.internal) {
                try await data.merge(guest, into: account, op: "stuck", policy: .keepGuest)
            }
            #expect(try await data.rows("ud_merge_ops") == 1)
            data.clock.advance(by: data.configuration.mergeRecordRetention.seconds + 1)
            #expect(try await data.pruneAll() == 1)
            // Finishing it later moves the rest, each document once.
            let report = try await data.merge(guest, into: account, op: "stuck", policy: .keepGuest)
            #expect(report.moved == 3)
            #expect(try await data.count(account) == 5)
            #expect(try await data.count(guest) == 0)
        }
    }

    @Test(
        "deleteAll of either uid deletes the merge's records at once; the deleted account takes no merge",
        arguments: TestEngine.allCases
    )
    func deletedWithEitherUID(engine: TestEngine) async throws {
        try await withUserData(engine) { data async throws in
            let guest = testUID()
            let account = testUID()
            let otherGuest = testUID()
            try await data.put(guest, "notes", "a", "guest a")
            try await data.put(otherGuest, "notes", "b", "other b")
            _ = try await data.merge(guest, into: account, op: "merge-1", policy: .keepAccount)
            #expect(try await data.rows("ud_merge_ops", "to_uid", account) == 1)

            #expect(try await data.deleteAll(account) == 1)
            #expect(try await data.rows("ud_merge_ops") == 0)
            #expect(try await data.rows("ud_merge_conflicts") == 0)
            await expectStatus(UserDataStatus.uidDeleted) {
                try await data.merge(otherGuest, into: account, op: "merge-2", policy: .keepAccount)
            }
            #expect(try await data.count(otherGuest) == 1, "nothing moved into the deleted account")
        }
    }
}
