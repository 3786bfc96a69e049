import FoyerAPI
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import NIOCore
import Testing

@Suite("putOnce and lookupPut: a put writes on the version it was charged against, once per op")
struct PutOnceTests {
    @Test(
        "a retry of an op answers the first write's version and time, even after the document changed, and writes nothing",
        arguments: TestEngine.allCases
    )
    func retryAnswersFirstResult(engine: TestEngine) async throws {
        try await withUserData(engine) { data async throws in
            let uid = testUID()
            let first = try await data.putOnce(uid, "notes", "a", "one", op: "op-1")
            #expect(first == .written(PutDocumentResponse(version: 1, updatedAtMicroseconds: 1_700_000_000_000_000)))

            // The document changes under another op.
            data.clock.advance(by: 5)
            #expect(try await data.putOnce(uid, "notes", "a", "two", op: "op-2").version == 2)

            // A retry of op-1 by the same attempt (a lost answer) is its own write; by another attempt, a replay.
            data.clock.advance(by: 5)
            let again = try await data.putOnce(uid, "notes", "a", "one", op: "op-1")
            #expect(again == first)
            let other = try await data.putOnce(uid, "notes", "a", "one", op: "op-1", attempt: "attempt-2")
            #expect(other == .replayed(try #require(first.result)))

            // Nothing was written by the retries.
            let stored = try #require(try await data.get(uid, "notes", "a"))
            #expect(String(buffer: stored.value) == "two")
            #expect(stored.version == 2)

            // lookupPut answers the recorded result without the document, and the document for an unknown op.
            let recorded = try await data.client.call(
                UserDataMethods.lookupPut,
                LookupPutRequest(uid: uid, collection: "notes", key: "a", op: "op-1", requestDigest: digest("a", "one"))
            )
            #expect(recorded == LookupPutResponse(recorded: first.result, document: nil))
            let fresh = try await data.client.call(
                UserDataMethods.lookupPut,
                LookupPutRequest(uid: uid, collection: "notes", key: "a", op: "op-3", requestDigest: [7])
            )
            #expect(fresh.recorded == nil && fresh.document == stored)
        }
    }

    @Test("an op used for another write is op-conflict, in putOnce and in lookupPut", arguments: TestEngine.allCases)
    func otherWriteUnderOp(engine: TestEngine) async throws {
        try await withUserData(engine) { data async throws in
            let uid = testUID()
            try await data.putOnce(uid, "notes", "a", "one", op: "op-1")
            await expectStatus(UserDataStatus.opConflict) {
                try await data.putOnce(uid, "notes", "a", "something else", op: "op-1")
            }
            await expectStatus(UserDataStatus.opConflict) {
                try await data.client.call(
                    UserDataMethods.lookupPut,
                    LookupPutRequest(uid: uid, collection: "notes", key: "a", op: "op-1", requestDigest: [9, 9])
                )
            }
            #expect(try await data.text(uid, "notes", "a") == "one")
            // Ops are per uid: another user's op-1 is another op.
            #expect(try await data.putOnce(testUID(), "notes", "a", "x", op: "op-1").version == 1)
        }
    }

    @Test("a refused put records nothing: its retry is evaluated again", arguments: TestEngine.allCases)
    func refusedPutIsNotRecorded(engine: TestEngine) async throws {
        try await withUserData(engine) { data async throws in
            let uid = testUID()
            try await data.put(uid, "notes", "a", "v1")
            await expectStatus(UserDataStatus.versionMismatch) {
                try await data.putOnce(uid, "notes", "a", "create only", expectedVersion: 0, op: "op-1")
            }
            #expect(try await data.rows("ud_put_ops") == 0)
            _ = try await data.client.call(
                UserDataMethods.delete,
                DeleteDocumentRequest(uid: uid, collection: "notes", key: "a")
            )
            #expect(
                try await data.putOnce(uid, "notes", "a", "create only", expectedVersion: 0, op: "op-1").version == 1
            )
        }
    }

    @Test("concurrent calls of one op write once; every caller gets the same result", arguments: TestEngine.allCases)
    func concurrentDuplicates(engine: TestEngine) async throws {
        try await withUserData(engine) { data async throws in
            let uid = testUID()
            let answers = try await withThrowingTaskGroup(of: PutOnceResponse.self) { group in
                for attempt in 0..<6 {
                    group.addTask {
                        try await data.putOnce(uid, "notes", "a", "once", op: "op-1", attempt: "attempt-\(attempt)")
                    }
                }
                return try await group.reduce(into: [PutOnceResponse]()) { $0.append($1) }
            }
            #expect(Set(answers.map(\.result)).count == 1)
            #expect(answers.filter { !$0.replayed }.count == 1, "exactly one attempt wrote")
            #expect(try await data.get(uid, "notes", "a")?.version == 1)
        }
    }

    @Test(
        "put records go after their retention, with deleteAll, and with the merge of their guest",
        arguments: TestEngine.allCases
    )
    func recordsGo(engine: TestEngine) async throws {
        try await withUserData(engine) { data async throws in
            let kept = testUID()
            let deleted = testUID()
            let guest = testUID()
            let account = testUID()
            for uid in [kept, deleted, guest] { try await data.putOnce(uid, "notes", "a", "x", op: "op-1") }
            #expect(try await data.rows("ud_put_ops") == 3)

            _ = try await data.deleteAll(deleted)
            #expect(try await data.rows("ud_put_ops", "uid", deleted) == 0)
            _ = try await data.merge(guest, into: account, op: "merge", policy: .keepBoth)
            #expect(try await data.rows("ud_put_ops", "uid", guest) == 0)

            data.clock.advance(by: data.configuration.putRecordRetention.seconds - 1)
            #expect(try await data.pruneAll() == 0)
            #expect(try await data.putOnce(kept, "notes", "a", "x", op: "op-1", attempt: "late").replayed)
            data.clock.advance(by: 2)
            // The put record of `kept`, and the tombstone of `deleted` (its lifetime is as long).
            #expect(try await data.pruneAll() == 2)
            #expect(try await data.rows("ud_put_ops") == 0)
        }
    }

    @Test("putOnce, lookupPut and prune refuse malformed op ids, attempts, digests and limits")
    func badInput() async throws {
        try await withUserData(.sqlite, maxAttempts: 1) { data async throws in
            let uid = testUID()
            await expectStatus(.invalidArgument) { try await data.putOnce(uid, "notes", "a", "x", op: "with space") }
            await expectStatus(.invalidArgument) {
                try await data.putOnce(uid, "notes", "a", "x", op: "op", attempt: "")
            }
            await expectStatus(.invalidArgument) {
                try await data.client.call(
                    UserDataMethods.lookupPut,
                    LookupPutRequest(uid: uid, collection: "notes", key: "a", op: "", requestDigest: [1])
                )
            }
            await expectStatus(.invalidArgument) {
                try await data.client.call(
                    UserDataMethods.lookupPut,
                    LookupPutRequest(uid: uid, collection: "notes", key: "a", op: "op", requestDigest: [])
                )
            }
            await expectStatus(.invalidArgument) {
                try await data.client.call(UserDataMethods.prune, PruneRequest(limit: 0))
            }
            await expectStatus(UserDataStatus.invalidKey) { try await data.putOnce(uid, "notes", "", "x", op: "op") }
            #expect(try await data.rows("ud_put_ops") == 0)
        }
    }

    @Test(
        "a putOnce writes only while the document is its base; otherwise it answers the document and records nothing",
        arguments: TestEngine.allCases
    )
    func writesOnItsBase(engine: TestEngine) async throws {
        try await withUserData(engine) { data async throws in
            let uid = testUID()
            let first = try await data.putOnce(uid, "notes", "a", "one", base: PutBase.absent, op: "op-1")
            let written = try #require(first.result)
            let v1 = PutBase(version: 1, size: 3, updatedAtMicroseconds: written.updatedAtMicroseconds)
            // Charged as new, but the document exists: found, with its version, size and time.
            data.clock.advance(by: 1)
            let stale = try await data.putOnce(uid, "notes", "a", "three", base: PutBase.absent, op: "op-2")
            #expect(stale == .found(v1))
            #expect(try await data.rows("ud_put_ops") == 1)
            // The same version charged against another size, or another time (deleted and made again): found too.
            for base in [
                PutBase(version: 1, size: 9, updatedAtMicroseconds: v1.updatedAtMicroseconds),
                PutBase(version: 1, size: 3, updatedAtMicroseconds: v1.updatedAtMicroseconds - 1),
            ] {
                #expect(try await data.putOnce(uid, "notes", "a", "three", base: base, op: "op-2") == .found(v1))
            }
            // On its base it writes, and the client's own expected version is still checked first.
            let second = try await data.putOnce(uid, "notes", "a", "three", base: v1, op: "op-2")
            #expect(second.version == 2)
            await expectStatus(UserDataStatus.versionMismatch) {
                try await data.putOnce(uid, "notes", "a", "four", expectedVersion: 1, base: v1, op: "op-3")
            }
            let secondTime = try #require(second.result).updatedAtMicroseconds
            let v2 = PutBase(version: 2, size: 5, updatedAtMicroseconds: secondTime)
            let gone = try await data.putOnce(uid, "notes", "b", "new", expectedVersion: nil, base: v2, op: "op-4")
            #expect(gone == .found(PutBase.absent))
            #expect(try await data.text(uid, "notes", "a") == "three")
            #expect(try await data.get(uid, "notes", "b") == nil)
            #expect(try await data.rows("ud_put_ops") == 2)
        }
    }

    @Test(
        "two ops racing to create one document: one writes, the other finds it (never both as new)",
        arguments: TestEngine.allCases
    )
    func racingCreates(engine: TestEngine) async throws {
        try await withUserData(engine) { data async throws in
            let uid = testUID()
            let answers = try await withThrowingTaskGroup(of: PutOnceResponse.self) { group in
                for index in 0..<6 {
                    group.addTask {
                        try await data.putOnce(uid, "notes", "a", "v\(index)", base: PutBase.absent, op: "op-\(index)")
                    }
                }
                return try await group.reduce(into: [PutOnceResponse]()) { $0.append($1) }
            }
            #expect(answers.filter { $0.result != nil }.count == 1)
            #expect(try await data.get(uid, "notes", "a")?.version == 1)
            #expect(try await data.rows("ud_put_ops") == 1)
        }
    }

    /// The digest `UserDataHarness.putOnce` sends for a value without an expected version.
    private func digest(_ key: String, _ text: String) -> [UInt8] { Array("notes/\(key)=\(text)@-".utf8) }
}
