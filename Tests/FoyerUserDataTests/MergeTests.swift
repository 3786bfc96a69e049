import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import NIOCore
import Testing

@Suite("merge of a guest's documents into an account")
struct MergeTests {
    /// A guest with notes a, b, c (b and c also held by the account), written at times that make the guest's b
    /// newer and the account's c newer.
    private func seed(_ data: UserDataHarness) async throws -> (guest: String, account: String) {
        let guest = testUID()
        let account = testUID()
        try await data.put(account, "notes", "c", "account c")
        try await data.put(guest, "notes", "a", "guest a")
        try await data.put(account, "notes", "b", "account b")
        data.clock.advance(by: 10)
        try await data.put(guest, "notes", "b", "guest b")
        try await data.put(guest, "notes", "c", "guest c")
        data.clock.advance(by: 10)
        try await data.put(account, "notes", "c", "account c2")
        try await data.put(account, "photos", "p", "account photo")
        return (guest, account)
    }

    @Test(
        "each policy resolves collisions its way and reports moved, conflicts and how each was resolved",
        arguments: TestEngine.allCases,
        MergePolicy.allCases
    )
    func policies(engine: TestEngine, policy: MergePolicy) async throws {
        try await withUserData(engine) { data async throws in
            let (guest, account) = try await seed(data)
            let report = try await data.merge(guest, into: account, op: "op-\(policy)", policy: policy)
            #expect(report.moved == 1)
            #expect(report.conflicts == 2)
            #expect(try await data.text(account, "notes", "a") == "guest a")
            #expect(try await data.count(guest) == 0)
            let b = try await data.text(account, "notes", "b")
            let c = try await data.text(account, "notes", "c")
            switch policy {
            case .keepAccount:
                #expect(report.keptAccount == 2)
                #expect(report.listedConflicts.map(\.resolution) == [.keptAccount, .keptAccount])
                #expect(b == "account b" && c == "account c2")
                #expect(try await data.count(account) == 4)
            case .keepGuest:
                #expect(report.keptGuest == 2)
                #expect(b == "guest b" && c == "guest c")
                #expect(try await data.get(account, "notes", "b")?.version == 2)
                #expect(try await data.get(account, "notes", "c")?.version == 3)
                #expect(try await data.count(account) == 4)
            case .keepNewest:
                #expect(report.keptGuest == 1 && report.keptAccount == 1)
                #expect(
                    report.listedConflicts
                        == [
                            MergeReport.Conflict(collection: "notes", key: "b", resolution: .keptGuest),
                            MergeReport.Conflict(collection: "notes", key: "c", resolution: .keptAccount),
                        ]
                )
                #expect(b == "guest b" && c == "account c2")
            case .keepBoth:
                #expect(report.keptBoth == 2)
                #expect(b == "account b" && c == "account c2")
                #expect(try await data.count(account) == 6)
                for conflict in report.listedConflicts {
                    let derived = try #require(conflict.derivedKey)
                    #expect(
                        derived.hasPrefix("\(conflict.key)~guest-")
                            && derived.utf8.count == conflict.key.utf8.count + 15
                    )
                    #expect(try await data.text(account, "notes", derived) == "guest \(conflict.key)")
                }
            }
        }
    }

    @Test("a retry under the same op answers the same report and moves nothing again", arguments: TestEngine.allCases)
    func idempotentUnderOp(engine: TestEngine) async throws {
        try await withUserData(engine, configure: { $0.mergeBatchSize = 3 }) { data async throws in
            let (guest, account) = try await seed(data)
            for index in 0..<10 { try await data.put(guest, "more", "m\(index)", "\(index)") }
            let first = try await data.merge(guest, into: account, op: "op-1", policy: .keepBoth)
            let second = try await data.merge(guest, into: account, op: "op-1", policy: .keepBoth)
            #expect(first == second)
            #expect(first.moved == 11 && first.keptBoth == 2)
            #expect(try await data.count(account) == 16)
        }
    }

    @Test(
        "op-conflict, merge-into-self and uid-merged refuse without changing anything; a retry under another policy gets the first report",
        arguments: TestEngine.allCases
    )
    func refusals(engine: TestEngine) async throws {
        try await withUserData(engine) { data async throws in
            let (guest, account) = try await seed(data)
            let other = testUID()
            try await data.put(other, "notes", "o", "other")
            await expectStatus(UserDataStatus.mergeIntoSelf) {
                try await data.merge(other, into: other, op: "op-self", policy: .keepBoth)
            }

            let first = try await data.merge(guest, into: account, op: "op-a", policy: .keepAccount)
            // The op id for another pair is refused; for the same pair, whatever the policy named, it answers the
            // recorded report (whoever finishes a merge need not know the policy it began with).
            await expectStatus(UserDataStatus.opConflict) {
                try await data.merge(other, into: account, op: "op-a", policy: .keepAccount)
            }
            #expect(try await data.merge(guest, into: account, op: "op-a", policy: .keepGuest) == first)
            // The merged guest takes no writes and cannot go elsewhere; nothing can be merged into it.
            await expectStatus(UserDataStatus.uidMerged) { try await data.put(guest, "notes", "late", "x") }
            await expectStatus(UserDataStatus.uidMerged) {
                try await data.client.call(
                    UserDataMethods.delete,
                    DeleteDocumentRequest(uid: guest, collection: "notes", key: "a")
                )
            }
            await expectStatus(UserDataStatus.uidMerged) {
                try await data.merge(guest, into: other, op: "op-b", policy: .keepBoth)
            }
            await expectStatus(UserDataStatus.uidMerged) {
                try await data.merge(other, into: guest, op: "op-c", policy: .keepBoth)
            }
            #expect(try await data.count(other) == 1)
            #expect(try await data.count(account) == 4)
            // A second op for the same pair is fine (it finds nothing left).
            #expect(try await data.merge(guest, into: account, op: "op-d", policy: .keepAccount) == MergeReport())
        }
    }

    @Test("keep-both derives a key that fits 256 bytes and skips keys the account already holds")
    func derivedKeys() async throws {
        try await withUserData(.sqlite) { data async throws in
            let guest = testUID()
            let account = testUID()
            let long = String(repeating: "é", count: 128)
            try await data.put(guest, "notes", long, "guest long")
            try await data.put(account, "notes", long, "account long")
            try await data.put(guest, "notes", "k", "guest k")
            try await data.put(account, "notes", "k", "account k")
            // Occupy the first key keep-both would derive for "k" (attempt 0, as the README documents it).
            let digest = SHA256.hash(Array("\(guest)\u{0}notes\u{0}k\u{0}0".utf8))
            let occupied = "k~guest-" + digest.prefix(4).map { String(format: "%02x", $0) }.joined()
            try await data.put(account, "notes", occupied, "already here")
            let report = try await data.merge(guest, into: account, op: "op-long", policy: .keepBoth)
            let derivedLong = try #require(report.listedConflicts.first { $0.key == long }?.derivedKey)
            #expect(derivedLong.utf8.count <= 256)
            #expect(try await data.text(account, "notes", derivedLong) == "guest long")
            let derivedK = try #require(report.listedConflicts.first { $0.key == "k" }?.derivedKey)
            #expect(derivedK != occupied && derivedK.hasPrefix("k~guest-"))
            #expect(try await data.text(account, "notes", derivedK) == "guest k")
            #expect(try await data.text(account, "notes", occupied) == "already here")
        }
    }

    @Test("merging a guest without documents reports nothing moved", arguments: TestEngine.allCases)
    func emptyGuest(engine: TestEngine) async throws {
        try await withUserData(engine) { data async throws in
            let account = testUID()
            try await data.put(account, "notes", "a", "x")
            #expect(
                try await data.merge(testUID(), into: account, op: "op-empty", policy: .keepNewest) == MergeReport()
            )
            #expect(try await data.count(account) == 1)
        }
    }

    @Test(
        "deleteAll of the account also deletes the records of the merges into it; the merged guest still takes no writes",
        arguments: TestEngine.allCases
    )
    func deleteAllForgetsConflicts(engine: TestEngine) async throws {
        try await withUserData(engine) { data async throws in
            let (guest, account) = try await seed(data)
            let report = try await data.merge(guest, into: account, op: "op-forget", policy: .keepBoth)
            #expect(report.listedConflicts.count == 2)
            let deleted = try await data.client.call(UserDataMethods.deleteAll, DeleteAllDocumentsRequest(uid: account))
            #expect(deleted.deleted == 6)
            #expect(try await data.rows("ud_merge_ops") == 0)
            #expect(try await data.rows("ud_merge_conflicts") == 0)
            // The merge's op row named both uids and went; the guest's refusal is now its own tombstone.
            await expectStatus(UserDataStatus.uidDeleted) {
                try await data.merge(guest, into: account, op: "op-forget", policy: .keepBoth)
            }
            await expectStatus(UserDataStatus.uidDeleted) { try await data.put(guest, "notes", "again", "x") }
            #expect(try await data.rows("ud_deleted_uids") == 2)
        }
    }
}
