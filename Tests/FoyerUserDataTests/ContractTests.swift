import FoyerAPI
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
        let ids = [
            UserDataMethods.put.id, UserDataMethods.get.id, UserDataMethods.list.id, UserDataMethods.delete.id,
            UserDataMethods.count.id, UserDataMethods.merge.id, UserDataMethods.deleteAll.id, UserDataMethods.export.id,
            UserDataMethods.deleteAllBatch.id,
        ]
        #expect(ids == Array(0x0301...0x0309))
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
