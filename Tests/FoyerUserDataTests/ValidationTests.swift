import FoyerAPI
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import NIOCore
import Testing

@Suite("bad input gets its own status and changes nothing")
struct ValidationTests {
    @Test("keys: empty, over 256 bytes, or with control characters are invalid-key", arguments: TestEngine.allCases)
    func invalidKeys(engine: TestEngine) async throws {
        try await withUserData(engine) { data async throws in
            let uid = testUID()
            let bad = [
                "", String(repeating: "k", count: 257), "nul\u{0}byte", "tab\there", "line\nbreak", "del\u{7F}",
                "c1\u{85}",
            ]
            for key in bad {
                await expectStatus(UserDataStatus.invalidKey) { try await data.put(uid, "notes", key, "x") }
                await expectStatus(UserDataStatus.invalidKey) { try await data.get(uid, "notes", key) }
            }
            // At the cap, and any other Unicode, is fine.
            try await data.put(uid, "notes", String(repeating: "é", count: 128), "x")
            try await data.put(uid, "notes", "emoji 🎉 / spaces & symbols ~!", "x")
            #expect(try await data.count(uid) == 2)
            // Over the transport cap the runtime refuses the body.
            await expectStatus(.invalidArgument) {
                try await data.put(uid, "notes", String(repeating: "k", count: 5000), "x")
            }
        }
    }

    @Test(
        "collections: empty, over 64 bytes or with other bytes than A-Z a-z 0-9 _ . - are invalid-collection",
        arguments: ["", String(repeating: "c", count: 65), "with space", "slash/", "ü", "semi;colon"]
    )
    func invalidCollections(collection: String) async throws {
        try await withUserData(.sqlite) { data async throws in
            let uid = testUID()
            await expectStatus(UserDataStatus.invalidCollection) { try await data.put(uid, collection, "k", "x") }
            await expectStatus(UserDataStatus.invalidCollection) {
                try await data.client.call(UserDataMethods.list, ListDocumentsRequest(uid: uid, collection: collection))
            }
            await expectStatus(UserDataStatus.invalidCollection) {
                try await data.client.call(
                    UserDataMethods.count,
                    CountDocumentsRequest(uid: uid, collection: collection)
                )
            }
            #expect(try await data.count(uid) == 0)
        }
    }

    @Test("a value over the cap is value-too-large with its size and the cap", arguments: TestEngine.allCases)
    func valueTooLarge(engine: TestEngine) async throws {
        try await withUserData(engine, configure: { $0.valueByteCountMax = 1000 }) { data async throws in
            let uid = testUID()
            try await data.put(uid, "notes", "fits", ByteBuffer(repeating: 7, count: 1000))
            let error = await expectStatus(UserDataStatus.valueTooLarge) {
                try await data.put(uid, "notes", "big", ByteBuffer(repeating: 7, count: 1001))
            }
            #expect(
                try ValueTooLargeDetails(decoding: try #require(error?.details))
                    == ValueTooLargeDetails(size: 1001, limit: 1000)
            )
            await expectStatus(UserDataStatus.valueTooLarge) {
                try await data.put(uid, "notes", "fits", ByteBuffer(repeating: 8, count: 5000))
            }
            #expect(try await data.get(uid, "notes", "fits")?.value == ByteBuffer(repeating: 7, count: 1000))
            #expect(try await data.count(uid) == 1)
        }
    }

    @Test("page sizes over the cap are page-size-too-large; cursors not made for the request are invalid-cursor")
    func pagesAndCursors() async throws {
        try await withUserData(
            .sqlite,
            configure: {
                $0.pageSizeMax = 50; $0.pageSizeDefault = 20
            }
        ) { data async throws in
            let uid = testUID()
            for index in 0..<3 { try await data.put(uid, "notes", "n\(index)", "x") }
            await expectStatus(UserDataStatus.pageSizeTooLarge) {
                try await data.client.call(
                    UserDataMethods.list,
                    ListDocumentsRequest(uid: uid, collection: "notes", pageSize: 51)
                )
            }
            await expectStatus(UserDataStatus.pageSizeTooLarge) {
                try await data.client.call(UserDataMethods.export, ExportDocumentsRequest(uid: uid, pageSize: 1 << 40))
            }
            let page = try await data.client.call(
                UserDataMethods.list,
                ListDocumentsRequest(uid: uid, collection: "notes", pageSize: 1)
            )
            let cursor = try #require(page.nextCursor)
            // A list cursor for another collection, a list cursor given to export, garbage, an empty cursor.
            await expectStatus(UserDataStatus.invalidCursor) {
                try await data.client.call(
                    UserDataMethods.list,
                    ListDocumentsRequest(uid: uid, collection: "other", cursor: cursor)
                )
            }
            await expectStatus(UserDataStatus.invalidCursor) {
                try await data.client.call(UserDataMethods.export, ExportDocumentsRequest(uid: uid, cursor: cursor))
            }
            for garbage in [
                ByteBuffer(), ByteBuffer(bytes: [1, 2, 3]), ByteBuffer(bytes: [1, 5, 110, 111, 116, 101, 115, 0]),
            ] {
                await expectStatus(UserDataStatus.invalidCursor) {
                    try await data.client.call(
                        UserDataMethods.list,
                        ListDocumentsRequest(uid: uid, collection: "notes", cursor: garbage)
                    )
                }
            }
            var trailing = cursor
            trailing.writeInteger(UInt8(0))
            await expectStatus(UserDataStatus.invalidCursor) {
                try await data.client.call(
                    UserDataMethods.list,
                    ListDocumentsRequest(uid: uid, collection: "notes", cursor: trailing)
                )
            }
        }
    }

    @Test("malformed uids and op ids are invalid-argument; an unknown policy never reaches the handler")
    func malformedIdentifiers() async throws {
        try await withUserData(.sqlite) { data async throws in
            await expectStatus(.invalidArgument) { try await data.put("bad uid", "notes", "k", "x") }
            await expectStatus(.invalidArgument) { try await data.put("", "notes", "k", "x") }
            await expectStatus(.invalidArgument) {
                try await data.merge(testUID(), into: testUID(), op: "", policy: .keepBoth)
            }
            await expectStatus(.invalidArgument) {
                try await data.merge(testUID(), into: testUID(), op: "with space", policy: .keepBoth)
            }
            var body = MergeDocumentsRequest(fromUID: testUID(), toUID: testUID(), op: "op", policy: .keepBoth)
                .encoded()
            body.moveWriterIndex(to: body.writerIndex - 1)
            body.writeInteger(UInt8(9))
            await expectStatus(.invalidArgument) {
                try await data.client.call(
                    RPCMethod<RawBody, RawBody>(id: UserDataMethods.merge.id, name: "raw merge", idempotent: true),
                    RawBody(body)
                )
            }
        }
    }
}
