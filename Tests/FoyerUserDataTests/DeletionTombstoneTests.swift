import FoyerAPI
import FoyerRPC
import FoyerTestSupport
import FoyerUserData
import FoyerWire
import NIOCore
import Synchronization
import Testing

@Suite("deleteAll leaves a tombstone: no write lands behind a deletion")
struct DeletionTombstoneTests {
    @Test(
        "puts racing deleteAll: once it returns no document is left, and every put was refused or deleted with the rest",
        arguments: TestEngine.allCases
    )
    func racingPuts(engine: TestEngine) async throws {
        try await withUserData(engine, configure: { $0.deleteBatchSize = 7 }) { data async throws in
            // Given a user with documents, and writers that keep writing new keys until some time after the
            // deletion returned.
            let uid = testUID()
            for index in 0..<60 { try await data.put(uid, "notes", "old\(index)", "old \(index)") }
            let deletionReturned = Flag()

            // When deleteAll runs while four writers put
            let (acknowledged, refused) = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
                for writer in 0..<4 {
                    group.addTask {
                        var acknowledged = 0
                        var refused = 0
                        var afterDeletion = 0
                        var index = 0
                        while afterDeletion < 10 {
                            if deletionReturned.isSet { afterDeletion += 1 }
                            do {
                                try await data.put(uid, "notes", "w\(writer)-\(index)", "late \(index)")
                                acknowledged += 1
                            } catch let error as RPCError where error.status == UserDataStatus.uidDeleted {
                                refused += 1
                            }
                            index += 1
                        }
                        return (acknowledged, refused)
                    }
                }
                group.addTask {
                    let deleted = try await data.deleteAll(uid)
                    // Then, at the moment deleteAll returns, nothing of the user is left.
                    #expect(try await data.count(uid) == 0)
                    deletionReturned.set()
                    return (-Int(deleted), 0)
                }
                var acknowledged = 0
                var refused = 0
                var deleted = 0
                for try await (written, refusedByWriter) in group {
                    if written < 0 { deleted = -written } else { acknowledged += written }
                    refused += refusedByWriter
                }
                // Every acknowledged put was deleted by deleteAll with the 60 old documents.
                #expect(deleted == 60 + acknowledged)
                return (acknowledged, refused)
            }

            // And nothing landed afterwards: 40 puts came after deleteAll returned, all refused.
            #expect(refused >= 40, "\(acknowledged) acknowledged, \(refused) refused")
            #expect(try await data.count(uid) == 0)
            #expect(try await data.exportAll(uid).documents.isEmpty)
        }
    }

    @Test(
        "a deleted uid refuses put, putOnce, lookupPut, delete and merges into or out of it (uid-deleted) until its tombstone expires",
        arguments: TestEngine.allCases
    )
    func refusalsUntilExpiry(engine: TestEngine) async throws {
        try await withUserData(engine) { data async throws in
            let deleted = testUID()
            let other = testUID()
            try await data.put(deleted, "notes", "a", "gone soon")
            try await data.put(other, "notes", "b", "stays")
            #expect(try await data.deleteAll(deleted) == 1)
            #expect(try await data.rows("ud_deleted_uids", "uid", deleted) == 1)

            await expectStatus(UserDataStatus.uidDeleted) { try await data.put(deleted, "notes", "a", "again") }
            await expectStatus(UserDataStatus.uidDeleted) {
                try await data.putOnce(deleted, "notes", "a", "again", op: "op-1")
            }
            await expectStatus(UserDataStatus.uidDeleted) {
                try await data.client.call(
                    UserDataMethods.lookupPut,
                    LookupPutRequest(uid: deleted, collection: "notes", key: "a", op: "op-1", requestDigest: [1])
                )
            }
            await expectStatus(UserDataStatus.uidDeleted) {
                try await data.client.call(
                    UserDataMethods.delete,
                    DeleteDocumentRequest(uid: deleted, collection: "notes", key: "a")
                )
            }
            await expectStatus(UserDataStatus.uidDeleted) {
                try await data.merge(other, into: deleted, op: "into-deleted", policy: .keepBoth)
            }
            await expectStatus(UserDataStatus.uidDeleted) {
                try await data.merge(deleted, into: other, op: "from-deleted", policy: .keepBoth)
            }
            #expect(try await data.rows("ud_merge_ops") == 0, "a refused merge records nothing")
            #expect(try await data.count(other) == 1)
            // A repeated deleteAll is still answered (it renews the tombstone).
            #expect(try await data.deleteAll(deleted) == 0)

            // The tombstone stays for its lifetime after the latest deleteAll...
            data.clock.advance(by: data.configuration.deletionTombstoneLifetime.seconds - 1)
            #expect(try await data.pruneAll() == 0)
            await expectStatus(UserDataStatus.uidDeleted) { try await data.put(deleted, "notes", "a", "again") }

            // ...and is pruned after it, leaving no row of the uid.
            data.clock.advance(by: 2)
            #expect(try await data.pruneAll() == 1)
            #expect(try await data.rows("ud_deleted_uids") == 0)
            try await data.put(deleted, "notes", "a", "a uid is never reused; after the tombstone it is unknown")
        }
    }

    @Test("deleteAllBatch tombstones every uid of the batch", arguments: TestEngine.allCases)
    func batch(engine: TestEngine) async throws {
        try await withUserData(engine) { data async throws in
            let uids = (0..<3).map { _ in testUID() }
            try await data.put(uids[0], "notes", "a", "x")
            let answer = try await data.client.call(
                UserDataMethods.deleteAllBatch,
                Batch(uids.map(DeleteAllDocumentsRequest.init(uid:)))
            )
            #expect(answer.elements.map(\.deleted) == [1, 0, 0])
            for uid in uids {
                await expectStatus(UserDataStatus.uidDeleted) { try await data.put(uid, "notes", "a", "again") }
            }
            #expect(try await data.rows("ud_deleted_uids") == 3)
        }
    }

    @Test(
        "the tombstone lifetime's default outlasts an access token's 15 minutes by far; less than a minute is refused; a deletion batch holds the largest document"
    )
    func lifetimeSetting() throws {
        var configuration = UserDataConfiguration(
            database: try .parse(
                "sqlite:unused.sqlite",
                dataDirectory: "/nonexistent",
                defaultFileName: "unused.sqlite"
            )
        )
        #expect(configuration.deletionTombstoneLifetime == .seconds(86_400))
        #expect(configuration.mergeRecordRetention == .seconds(7 * 86_400))
        #expect(configuration.putRecordRetention == .seconds(86_400))
        configuration.deletionTombstoneLifetime = .seconds(59)
        #expect(throws: UserDataConfigurationError.self) { try configuration.validate() }
        configuration.deletionTombstoneLifetime = .seconds(60)
        try configuration.validate()
        // A deletion transaction must hold at least the largest document.
        configuration.deleteBatchByteCount = configuration.valueByteCountMax - 1
        #expect(throws: UserDataConfigurationError.self) { try configuration.validate() }
    }
}

/// A flag one task sets and others read.
final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}

extension Duration {
    /// The duration in seconds, for the test clock.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
