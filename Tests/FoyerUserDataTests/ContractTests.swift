import FoyerAPI
import FoyerTestSupport
import FoyerWire
import NIOCore
import Testing

@Suite("user-data's wire contract")
struct ContractTests {
    private func roundTrip<M: WireMessage & Equatable>(_ message: M) throws {
        let encoded = message.encoded()
        #expect(try M(decoding: encoded) == message)
        var trailing = encoded
        trailing.writeInteger(UInt8(0))
        #expect(throws: WireError.trailingBytes) { try M(decoding: trailing) }
        #expect(throws: WireError.self) { try M(decoding: encoded.getSlice(at: 0, length: encoded.readableBytes - 1)!) }
    }

    @Test("every message round-trips and refuses trailing and missing bytes")
    func roundTrips() throws {
        let document = StoredDocument(
            collection: "notes",
            key: "k",
            value: ByteBuffer(bytes: [0, 1, 2, 255]),
            version: 3,
            updatedAtMicroseconds: 1_700_000_000_000_000
        )
        try roundTrip(
            PutDocumentRequest(
                uid: "u",
                collection: "notes",
                key: "k",
                value: ByteBuffer(bytes: [0, 9]),
                expectedVersion: 0
            )
        )
        try roundTrip(PutDocumentRequest(uid: "u", collection: "notes", key: "k", value: ByteBuffer()))
        try roundTrip(PutDocumentResponse(version: 2, updatedAtMicroseconds: -5))
        try roundTrip(GetDocumentRequest(uid: "u", collection: "notes", key: "k"))
        try roundTrip(GetDocumentResponse(document: document))
        try roundTrip(GetDocumentResponse(document: nil))
        try roundTrip(ListDocumentsRequest(uid: "u", collection: "notes", cursor: ByteBuffer(bytes: [1]), pageSize: 10))
        try roundTrip(ExportDocumentsRequest(uid: "u", cursor: nil, pageSize: 0))
        try roundTrip(DocumentPage(documents: [document, document], nextCursor: ByteBuffer(bytes: [1, 2])))
        try roundTrip(DeleteDocumentRequest(uid: "u", collection: "notes", key: "k", expectedVersion: 4))
        try roundTrip(DeleteDocumentResponse(deleted: true))
        try roundTrip(CountDocumentsRequest(uid: "u", collection: "notes"))
        try roundTrip(CountDocumentsResponse(documents: 3, valueBytes: 30))
        try roundTrip(MergeDocumentsRequest(fromUID: "g", toUID: "a", op: "op", policy: .keepNewest))
        try roundTrip(
            MergeReport(
                moved: 5,
                conflicts: 2,
                keptAccount: 1,
                keptBoth: 1,
                listedConflicts: [
                    .init(collection: "notes", key: "a", resolution: .keptAccount),
                    .init(collection: "notes", key: "b", resolution: .keptBoth, derivedKey: "b~guest-0011aabb"),
                ]
            )
        )
        try roundTrip(DeleteAllDocumentsRequest(uid: "u"))
        try roundTrip(DeleteAllDocumentsResponse(deleted: 12))
        try roundTrip(ValueTooLargeDetails(size: 300_000, limit: 262_144))
        try roundTrip(VersionMismatchDetails(currentVersion: 0))
        try roundTrip(
            PutOnceRequest(
                uid: "u",
                collection: "notes",
                key: "k",
                value: ByteBuffer(bytes: [0, 9]),
                expectedVersion: 3,
                base: PutBase(version: 3, size: 2, updatedAtMicroseconds: 9),
                op: "put-1",
                attempt: "a-1",
                requestDigest: Array(repeating: 7, count: 32)
            )
        )
        try roundTrip(
            PutOnceRequest(
                uid: "u",
                collection: "c",
                key: "k",
                value: ByteBuffer(),
                base: .absent,
                op: "o",
                attempt: "a",
                requestDigest: [1]
            )
        )
        try roundTrip(PutOnceResponse.written(PutDocumentResponse(version: 4, updatedAtMicroseconds: -1)))
        try roundTrip(PutOnceResponse.replayed(PutDocumentResponse(version: 4, updatedAtMicroseconds: 5)))
        try roundTrip(PutOnceResponse.found(PutBase(version: 2, size: 300, updatedAtMicroseconds: 7)))
        try roundTrip(PutOnceResponse.found(.absent))
        try roundTrip(LookupPutRequest(uid: "u", collection: "notes", key: "k", op: "put-1", requestDigest: [1, 2]))
        try roundTrip(
            LookupPutResponse(recorded: PutDocumentResponse(version: 1, updatedAtMicroseconds: 5), document: nil)
        )
        try roundTrip(LookupPutResponse(recorded: nil, document: document))
        try roundTrip(LookupPutResponse(recorded: nil, document: nil))
        try roundTrip(PruneRequest(limit: 100))
        try roundTrip(PruneResponse(removed: 3))
        // Every truncation of the new messages is refused too.
        try WireMessageChecks.roundTrip(
            PutOnceRequest(
                uid: "u",
                collection: "c",
                key: "k",
                value: ByteBuffer(),
                base: .absent,
                op: "o",
                attempt: "a",
                requestDigest: [1]
            )
        )
        try WireMessageChecks.roundTrip(
            LookupPutResponse(recorded: PutDocumentResponse(version: 1, updatedAtMicroseconds: 5), document: nil)
        )
        try WireMessageChecks.roundTrip(LookupPutResponse(recorded: nil, document: document))
        try WireMessageChecks.roundTrip(PruneRequest(limit: 10_000))
    }

    @Test(
        "digests are 1–64 bytes, a lookup answer never carries both a result and a document, a prune limit is 1–10000"
    )
    func newCaps() {
        func putOnce(digest: [UInt8]) -> ByteBuffer {
            var body = ByteBuffer()
            for text in ["u", "c", "k"] { body.writeLengthPrefixedString(text) }
            body.writeLengthPrefixedBytes([UInt8]())
            body.writeBool(false)
            PutBase.absent.encode(into: &body)
            for text in ["op", "attempt"] { body.writeLengthPrefixedString(text) }
            body.writeLengthPrefixedBytes(digest)
            return body
        }
        #expect(throws: WireError.self) { try PutOnceRequest(decoding: putOnce(digest: [])) }
        #expect(throws: WireError.self) {
            try PutOnceRequest(decoding: putOnce(digest: Array(repeating: 1, count: 65)))
        }
        #expect(throws: Never.self) { try PutOnceRequest(decoding: putOnce(digest: Array(repeating: 1, count: 64))) }
        var both = ByteBuffer()
        both.writeBool(true)
        PutDocumentResponse(version: 1, updatedAtMicroseconds: 0).encode(into: &both)
        both.writeBool(true)
        StoredDocument(collection: "c", key: "k", value: ByteBuffer(), version: 1, updatedAtMicroseconds: 0)
            .encode(into: &both)
        #expect(throws: WireError.invalidValue) { try LookupPutResponse(decoding: both) }
        // No document has no size and no time; an outcome is 0, 1 or 2.
        var sizedNothing = ByteBuffer()
        PutBase(version: 1, size: 4, updatedAtMicroseconds: 0).encode(into: &sizedNothing)
        sizedNothing.setInteger(UInt8(0), at: sizedNothing.readerIndex)
        #expect(throws: WireError.invalidValue) { try PutBase(decoding: sizedNothing) }
        #expect(throws: WireError.invalidValue) { try PutOnceResponse(decoding: ByteBuffer(bytes: [3])) }
        for limit: UInt64 in [0, 10_001] {
            var body = ByteBuffer()
            body.writeVarint(limit)
            #expect(throws: WireError.invalidValue) { try PruneRequest(decoding: body) }
        }
    }

    @Test("a page body is within its count cap, and an unknown policy byte is refused")
    func caps() {
        var page = ByteBuffer()
        page.writeVarint(UInt64(UserDataLimits.pageSizeLimit + 1))
        #expect(throws: WireError.lengthOverLimit) { try DocumentPage(decoding: page) }
        var merge = ByteBuffer()
        for text in ["g", "a", "op"] { merge.writeLengthPrefixedString(text) }
        merge.writeInteger(UInt8(4))
        #expect(throws: WireError.invalidValue) { try MergeDocumentsRequest(decoding: merge) }
    }

    @Test("method ids and statuses sit in user-data's ranges and are distinct")
    func ranges() {
        let ids = UserDataMethods.all.map(\.id)
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { ServiceRange.userData.contains(methodID: $0) })
        #expect(Set(UserDataStatus.all.map(\.rawValue)).count == UserDataStatus.all.count)
        for status in UserDataStatus.all {
            #expect(status.rawValue & 0xFF00 == 0x3300)
            #expect(status.retryClass == .rejected)
            #expect(UserDataStatus.name(of: status) != nil)
        }
        #expect(MergePolicy.allCases.map(\.description) == ["keep-account", "keep-guest", "keep-newest", "keep-both"])
    }
}
