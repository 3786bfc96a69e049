import FoyerAPI
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import NIOCore
import Testing

@Suite("list and export in pages")
struct PagingTests {
    @Test(
        "list walks a collection in bytewise key order, page by page, and nothing else",
        arguments: TestEngine.allCases
    )
    func listPages(engine: TestEngine) async throws {
        try await withUserData(engine) { data async throws in
            let uid = testUID()
            var keys =
                (0..<230).map { String(format: "key-%03d", $0) } + ["Zed", "apple", "Éclair", "ä", "a b", "~tilde"]
            try await withThrowingTaskGroup(of: Void.self) { group in
                for key in keys { group.addTask { try await data.put(uid, "notes", key, "v:\(key)") } }
                try await group.waitForAll()
            }
            try await data.put(uid, "other", "key-000", "not listed")
            try await data.put(testUID(), "notes", "key-000", "another user")
            keys.sort { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }

            var listed: [StoredDocument] = []
            var cursor: ByteBuffer?
            var pages: [Int] = []
            repeat {
                let page = try await data.client.call(
                    UserDataMethods.list,
                    ListDocumentsRequest(uid: uid, collection: "notes", cursor: cursor, pageSize: 100)
                )
                listed += page.documents
                pages.append(page.documents.count)
                cursor = page.nextCursor
            } while cursor != nil
            #expect(pages == [100, 100, 36])
            #expect(listed.map(\.key) == keys)
            #expect(listed.allSatisfy { String(buffer: $0.value) == "v:\($0.key)" && $0.collection == "notes" })

            let defaultPage = try await data.client.call(
                UserDataMethods.list,
                ListDocumentsRequest(uid: uid, collection: "notes")
            )
            #expect(defaultPage.documents.count == data.configuration.pageSizeDefault)
            let empty = try await data.client.call(
                UserDataMethods.list,
                ListDocumentsRequest(uid: uid, collection: "none")
            )
            #expect(empty == DocumentPage(documents: [], nextCursor: nil))
        }
    }

    @Test(
        "a page stops early when the next document would take it over the byte budget, and always fits a frame",
        arguments: TestEngine.allCases
    )
    func byteBudget(engine: TestEngine) async throws {
        try await withUserData(engine) { data async throws in
            let uid = testUID()
            let large = ByteBuffer(repeating: 0xAB, count: data.configuration.valueByteCountMax)
            for index in 0..<8 { try await data.put(uid, "blobs", "b\(index)", large) }
            try await data.put(uid, "blobs", "c-small", "tiny")
            var sizes: [Int] = []
            var cursor: ByteBuffer?
            repeat {
                let page = try await data.client.call(
                    UserDataMethods.list,
                    ListDocumentsRequest(uid: uid, collection: "blobs", cursor: cursor, pageSize: 1000)
                )
                #expect(page.encoded().readableBytes <= data.configuration.pageByteCountMax)
                #expect(page.documents.allSatisfy { $0.key == "c-small" || $0.value == large })
                sizes.append(page.documents.count)
                cursor = page.nextCursor
            } while cursor != nil
            // 768 KiB holds two values of 256 KiB and their headers, not three; the small one fits beside two.
            #expect(sizes == [2, 2, 2, 3])
        }
    }

    @Test("a single document as large as the cap still makes a page on its own")
    func oneDocumentOverBudget() async throws {
        try await withUserData(
            .sqlite,
            configure: {
                $0.valueByteCountMax = 900_000; $0.pageByteCountMax = 100_000
            }
        ) { data async throws in
            let uid = testUID()
            let huge = ByteBuffer(repeating: 1, count: 900_000)
            try await data.put(uid, "blobs", "a", huge)
            try await data.put(uid, "blobs", "b", huge)
            let (documents, pages) = try await data.exportAll(uid)
            #expect(documents.map(\.key) == ["a", "b"])
            #expect(pages == 2)
            #expect(documents.allSatisfy { $0.value == huge })
        }
    }

    @Test("export walks every collection of the user in order, in pages with a cursor", arguments: TestEngine.allCases)
    func export(engine: TestEngine) async throws {
        try await withUserData(engine) { data async throws in
            let uid = testUID()
            var expected: [String] = []
            for collection in ["photos", "notes", "a.settings"] {
                for index in 0..<17 {
                    try await data.put(uid, collection, "k\(index)", ByteBuffer(bytes: [UInt8(index), 0, 255]))
                    expected.append("\(collection)/k\(index)")
                }
            }
            try await data.put(testUID(), "notes", "k1", "someone else")
            expected.sort { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            let (documents, pages) = try await data.exportAll(uid, pageSize: 10)
            #expect(documents.map { "\($0.collection)/\($0.key)" } == expected)
            #expect(pages == 6)
            #expect(documents.allSatisfy { $0.version == 1 && $0.value.readableBytes == 3 })
            let nothing = try await data.exportAll(testUID())
            #expect(nothing.documents.isEmpty && nothing.pages == 1)
        }
    }
}
