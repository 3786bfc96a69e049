import FoyerAPI
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import NIOCore
import Testing

@Suite("documents: put, get, delete, count")
struct DocumentTests {
    @Test("values of any content round-trip exactly, the empty value included", arguments: TestEngine.allCases)
    func binarySafe(engine: TestEngine) async throws {
        try await withUserData(engine) { data async throws in
            let uid = testUID()
            let values: [ByteBuffer] = [
                ByteBuffer(bytes: Array(0...255)),
                ByteBuffer(),
                ByteBuffer(bytes: [0, 0, 0]),
                ByteBuffer(bytes: Array("héllo\u{0}wörld".utf8)),
                ByteBuffer(
                    bytes: (0..<300_000 / 4).flatMap { _ in
                        withUnsafeBytes(of: UInt32.random(in: 0...UInt32.max)) { Array($0) }
                    }
                )
                .getSlice(at: 0, length: data.configuration.valueByteCountMax)!,
            ]
            for (index, value) in values.enumerated() {
                try await data.put(uid, "blobs", "v\(index)", value)
                let stored = try #require(try await data.get(uid, "blobs", "v\(index)"))
                #expect(stored.value == value)
                #expect(stored.collection == "blobs" && stored.key == "v\(index)")
            }
            #expect(try await data.get(uid, "blobs", "missing") == nil)
            #expect(try await data.get(testUID(), "blobs", "v0") == nil)
        }
    }

    @Test("every write bumps the version and stamps the clock's time", arguments: TestEngine.allCases)
    func versionsAndTimes(engine: TestEngine) async throws {
        try await withUserData(engine) { data async throws in
            let uid = testUID()
            let first = try await data.put(uid, "notes", "a", "one")
            #expect(first.version == 1)
            #expect(first.updatedAtMicroseconds == 1_700_000_000_000_000)
            data.clock.advance(by: 2.5)
            let second = try await data.put(uid, "notes", "a", "two")
            #expect(second.version == 2)
            #expect(second.updatedAtMicroseconds == 1_700_000_002_500_000)
            let stored = try #require(try await data.get(uid, "notes", "a"))
            #expect(stored.version == 2 && stored.updatedAtMicroseconds == second.updatedAtMicroseconds)
            #expect(String(buffer: stored.value) == "two")
        }
    }

    @Test(
        "compare-and-set: create-only, update at a version, and version-mismatch with the current version",
        arguments: TestEngine.allCases
    )
    func compareAndSet(engine: TestEngine) async throws {
        try await withUserData(engine) { data async throws in
            let uid = testUID()
            let created = try await data.put(uid, "notes", "a", ByteBuffer(string: "v1"), expectedVersion: 0)
            #expect(created.version == 1)
            let exists = await expectStatus(UserDataStatus.versionMismatch) {
                try await data.put(uid, "notes", "a", ByteBuffer(string: "again"), expectedVersion: 0)
            }
            #expect(try VersionMismatchDetails(decoding: try #require(exists?.details)).currentVersion == 1)
            #expect(try await data.put(uid, "notes", "a", ByteBuffer(string: "v2"), expectedVersion: 1).version == 2)
            let stale = await expectStatus(UserDataStatus.versionMismatch) {
                try await data.put(uid, "notes", "a", ByteBuffer(string: "lost update"), expectedVersion: 1)
            }
            #expect(try VersionMismatchDetails(decoding: try #require(stale?.details)).currentVersion == 2)
            let absent = await expectStatus(UserDataStatus.versionMismatch) {
                try await data.put(uid, "notes", "b", ByteBuffer(string: "x"), expectedVersion: 4)
            }
            #expect(try VersionMismatchDetails(decoding: try #require(absent?.details)).currentVersion == 0)
            await expectStatus(UserDataStatus.versionMismatch) {
                try await data.put(uid, "notes", "a", ByteBuffer(string: "x"), expectedVersion: .max)
            }
            #expect(try await data.text(uid, "notes", "a") == "v2")
            #expect(try await data.get(uid, "notes", "b") == nil)
        }
    }

    @Test("concurrent compare-and-set writers: exactly one wins each version", arguments: TestEngine.allCases)
    func racingCompareAndSet(engine: TestEngine) async throws {
        try await withUserData(engine) { data async throws in
            let uid = testUID()
            try await data.put(uid, "c", "counter", "0")
            let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                for writer in 0..<12 {
                    group.addTask {
                        do {
                            try await data.put(uid, "c", "counter", ByteBuffer(string: "\(writer)"), expectedVersion: 1)
                            return true
                        } catch let error as RPCError where error.status == UserDataStatus.versionMismatch {
                            return false
                        }
                    }
                }
                return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            #expect(winners == 1)
            #expect(try await data.get(uid, "c", "counter")?.version == 2)
        }
    }

    @Test(
        "delete, with and without an expected version; deleting twice answers deleted: false",
        arguments: TestEngine.allCases
    )
    func delete(engine: TestEngine) async throws {
        try await withUserData(engine) { data async throws in
            let uid = testUID()
            try await data.put(uid, "notes", "a", "x")
            try await data.put(uid, "notes", "b", "y")
            func delete(_ key: String, expected: UInt64? = nil) async throws -> Bool {
                try await data.client.call(
                    UserDataMethods.delete,
                    DeleteDocumentRequest(uid: uid, collection: "notes", key: key, expectedVersion: expected)
                ).deleted
            }
            #expect(try await delete("a"))
            #expect(try await delete("a") == false)
            let stale = await expectStatus(UserDataStatus.versionMismatch) { try await delete("b", expected: 7) }
            #expect(try VersionMismatchDetails(decoding: try #require(stale?.details)).currentVersion == 1)
            await expectStatus(UserDataStatus.versionMismatch) { try await delete("a", expected: 1) }
            #expect(try await delete("b", expected: 1))
            #expect(try await data.count(uid) == 0)
        }
    }

    @Test("count per collection and in all, with the bytes of the values", arguments: TestEngine.allCases)
    func count(engine: TestEngine) async throws {
        try await withUserData(engine) { data async throws in
            let uid = testUID()
            for index in 0..<5 { try await data.put(uid, "notes", "n\(index)", ByteBuffer(repeating: 1, count: 10)) }
            for index in 0..<3 { try await data.put(uid, "photos", "p\(index)", ByteBuffer(repeating: 2, count: 100)) }
            try await data.put(testUID(), "notes", "other user", "z")
            let all = try await data.client.call(UserDataMethods.count, CountDocumentsRequest(uid: uid))
            #expect(all == CountDocumentsResponse(documents: 8, valueBytes: 350))
            #expect(try await data.count(uid, "notes") == 5)
            #expect(try await data.count(uid, "photos") == 3)
            #expect(try await data.count(uid, "videos") == 0)
            #expect(try await data.count(testUID()) == 0)
        }
    }
}
