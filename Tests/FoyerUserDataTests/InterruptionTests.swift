import FoyerAPI
import FoyerRPC
import FoyerTestSupport
import FoyerUserData
import FoyerWire
import NIOCore
import Testing

@Suite("merge and deleteAll interrupted by an injected failure, then retried")
struct InterruptionTests {
    @Test(
        "a merge interrupted after two batches finishes on retry without duplicating or losing a document",
        arguments: TestEngine.allCases
    )
    func mergeInterrupted(engine: TestEngine) async throws {
        let injection = UserDataConfiguration.FailureInjection(afterBatches: [.merge: 2])
        try await withUserData(
            engine,
            configure: {
                $0.mergeBatchSize = 10; $0.failureInjection = injection
            },
            maxAttempts: 1
        ) { data async throws in
            let guest = testUID()
            let account = testUID()
            for index in 0..<45 { try await data.put(guest, "notes", String(format: "g%02d", index), "guest \(index)") }
            for index in 0..<5 {
                try await data.put(account, "notes", String(format: "g%02d", index * 10), "account \(index)")
            }
            for index in 0..<5 { try await data.put(account, "other", "o\(index)", "other \(index)") }

            await expectStatus(.internal) { try await data.merge(guest, into: account, op: "crash", policy: .keepBoth) }
            #expect(injection.fired == [.merge])
            #expect(try await data.count(guest) == 25)
            await expectStatus(UserDataStatus.uidMerged) { try await data.put(guest, "notes", "meanwhile", "x") }

            let report = try await data.merge(guest, into: account, op: "crash", policy: .keepBoth)
            #expect(report.moved == 40 && report.conflicts == 5 && report.keptBoth == 5)
            #expect(report.listedConflicts.map(\.key) == ["g00", "g10", "g20", "g30", "g40"])
            #expect(try await data.merge(guest, into: account, op: "crash", policy: .keepBoth) == report)
            #expect(try await data.count(guest) == 0)

            let documents = try await data.exportAll(account).documents
            #expect(documents.count == 55)
            let values = documents.map { String(buffer: $0.value) }
            for index in 0..<45 { #expect(values.filter { $0 == "guest \(index)" }.count == 1) }
            for index in 0..<5 { #expect(values.filter { $0 == "account \(index)" }.count == 1) }
        }
    }

    @Test("the client's own retry of the idempotent merge completes it in one call", arguments: TestEngine.allCases)
    func mergeRetriedByClient(engine: TestEngine) async throws {
        let injection = UserDataConfiguration.FailureInjection(afterBatches: [.merge: 1])
        try await withUserData(
            engine,
            configure: {
                $0.mergeBatchSize = 4; $0.failureInjection = injection
            }
        ) { data async throws in
            let guest = testUID()
            let account = testUID()
            for index in 0..<10 { try await data.put(guest, "notes", "g\(index)", "\(index)") }
            let report = try await data.merge(guest, into: account, op: "auto", policy: .keepAccount)
            #expect(injection.fired == [.merge])
            #expect(report.moved == 10)
            #expect(try await data.count(account) == 10)
        }
    }

    @Test(
        "deleteAll interrupted after a batch deletes the rest on retry, and reports how many each call deleted",
        arguments: TestEngine.allCases
    )
    func deleteAllInterrupted(engine: TestEngine) async throws {
        let injection = UserDataConfiguration.FailureInjection(afterBatches: [.deleteAll: 1])
        try await withUserData(
            engine,
            configure: {
                $0.deleteBatchSize = 10; $0.failureInjection = injection
            },
            maxAttempts: 1
        ) { data async throws in
            let uid = testUID()
            let keep = testUID()
            for index in 0..<35 { try await data.put(uid, index % 2 == 0 ? "even" : "odd", "d\(index)", "x") }
            try await data.put(keep, "even", "d0", "kept")
            await expectStatus(.internal) {
                try await data.client.call(UserDataMethods.deleteAll, DeleteAllDocumentsRequest(uid: uid))
            }
            #expect(try await data.count(uid) == 25)
            let rest = try await data.client.call(UserDataMethods.deleteAll, DeleteAllDocumentsRequest(uid: uid))
            #expect(rest.deleted == 25)
            #expect(try await data.count(uid) == 0)
            let again = try await data.client.call(UserDataMethods.deleteAll, DeleteAllDocumentsRequest(uid: uid))
            #expect(again.deleted == 0)
            #expect(try await data.text(keep, "even", "d0") == "kept")
        }
    }

    @Test(
        "deleteAll's transactions stop at the byte budget: large documents go a few per commit, in key order",
        arguments: TestEngine.allCases
    )
    func deleteAllByteBudget(engine: TestEngine) async throws {
        // 1,000-byte documents and a 2,500-byte budget: two per transaction, whichever uid they belong to.
        let injection = UserDataConfiguration.FailureInjection(afterBatches: [.deleteAll: 2])
        try await withUserData(
            engine,
            configure: {
                $0.valueByteCountMax = 1000; $0.deleteBatchByteCount = 2500; $0.failureInjection = injection
            },
            maxAttempts: 1
        ) { data async throws in
            // deleteAll takes uids in sorted order: the small one first.
            let uids = [testUID(), testUID()].sorted()
            let (small, large) = (uids[0], uids[1])
            let text = String(repeating: "x", count: 1000)
            try await data.put(small, "c", "only", text)
            for index in 0..<7 { try await data.put(large, "c", "k\(index)", text) }
            let request = Batch([small, large].map(DeleteAllDocumentsRequest.init(uid:)))
            await expectStatus(.internal) { try await data.client.call(UserDataMethods.deleteAllBatch, request) }
            // Two transactions: the small uid whole with the large one's first document, then the next two.
            #expect(try await data.count(small) == 0)
            #expect(try await data.exportAll(large).documents.map(\.key) == ["k3", "k4", "k5", "k6"])
            let rest = try await data.client.call(UserDataMethods.deleteAllBatch, request)
            #expect(rest.elements.map(\.deleted) == [0, 4])
            #expect(try await data.count(large) == 0)
        }
    }

    @Test("deleteAll of many documents in batches reports them all", arguments: TestEngine.allCases)
    func deleteAllBatches(engine: TestEngine) async throws {
        try await withUserData(engine, configure: { $0.deleteBatchSize = 7 }) { data async throws in
            let uid = testUID()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<50 { group.addTask { try await data.put(uid, "c\(index % 3)", "k\(index)", "x") } }
                try await group.waitForAll()
            }
            let deleted = try await data.client.call(UserDataMethods.deleteAll, DeleteAllDocumentsRequest(uid: uid))
            #expect(deleted.deleted == 50)
            #expect(try await data.exportAll(uid).documents.isEmpty)
        }
    }

    @Test(
        "deleteAllBatch deletes the documents of every listed uid across transactions, answers each in order, and keeps the others",
        arguments: TestEngine.allCases
    )
    func deleteAllBatchOfUsers(engine: TestEngine) async throws {
        try await withUserData(engine, configure: { $0.deleteBatchSize = 4 }) { data async throws in
            let uids = (0..<4).map { _ in testUID() }
            let keep = testUID()
            // 0, 3, 1 and 9 documents: the nine of the last uid span several transactions.
            for (uid, count) in zip(uids, [3, 1, 0, 9]) {
                for index in 0..<count { try await data.put(uid, "c\(index % 2)", "k\(index)", "x") }
            }
            try await data.put(keep, "c0", "k0", "kept")
            let request = Batch((uids + [uids[0]]).map(DeleteAllDocumentsRequest.init(uid:)))
            let deleted = try await data.client.call(UserDataMethods.deleteAllBatch, request)
            #expect(deleted.elements.map(\.deleted) == [3, 1, 0, 9, 0])
            for uid in uids { #expect(try await data.count(uid) == 0) }
            #expect(try await data.text(keep, "c0", "k0") == "kept")
            let again = try await data.client.call(UserDataMethods.deleteAllBatch, request)
            #expect(again.elements.map(\.deleted) == [0, 0, 0, 0, 0])
            await expectStatus(.invalidArgument) {
                try await data.client.call(UserDataMethods.deleteAllBatch, Batch<DeleteAllDocumentsRequest>([]))
            }
        }
    }
}
