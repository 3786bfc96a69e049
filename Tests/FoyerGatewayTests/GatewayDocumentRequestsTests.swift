import FoyerAPI
import FoyerTestSupport
import FoyerWire
import NIOCore
import Testing

@Suite("Gateway contract: document requests refuse what the contract does not allow")
struct GatewayDocumentRequestsTests {
    typealias Samples = GatewaySamples
    typealias Expect = WireExpectations

    private func put(
        collection: String = "notes",
        key: String = "k",
        value: ByteBuffer = ByteBuffer(string: "v"),
        expectedVersion: UInt64? = nil,
        idempotencyKey: String = Samples.operationID
    ) -> GatewayPutRequest {
        GatewayPutRequest(
            accessToken: Samples.accessToken,
            collection: collection,
            key: key,
            value: value,
            expectedVersion: expectedVersion,
            idempotencyKey: idempotencyKey
        )
    }

    private func importing(
        collection: String = "notes",
        documents: [GatewayImportRequest.Entry] = [.init(key: "k", value: ByteBuffer(string: "v"))],
        idempotencyKey: String = Samples.operationID
    ) -> GatewayImportRequest {
        GatewayImportRequest(
            accessToken: Samples.accessToken,
            collection: collection,
            documents: documents,
            idempotencyKey: idempotencyKey
        )
    }

    @Test("Collections, keys, values and cursors over their transport caps are refused")
    func caps() {
        let collectionMax = UserDataLimits.collectionWireByteCountMax
        let keyMax = UserDataLimits.keyWireByteCountMax
        Expect.cap(collectionMax) { put(collection: Samples.ascii($0)) }
        Expect.cap(keyMax) { put(key: Samples.multibyte($0)) }
        Expect.cap(UserDataLimits.valueWireByteCountMax) { put(value: Samples.bytes($0)) }
        Expect.cap(collectionMax) { GatewayDocumentRequest(accessToken: "t", collection: Samples.ascii($0), key: "k") }
        Expect.cap(keyMax) { GatewayDocumentRequest(accessToken: "t", collection: "c", key: Samples.ascii($0)) }
        Expect.cap(collectionMax) { GatewayListRequest(accessToken: "t", collection: Samples.ascii($0)) }
        Expect.cap(UserDataLimits.cursorByteCountMax) {
            GatewayListRequest(accessToken: "t", collection: "c", cursor: Samples.bytes($0))
        }
        Expect.cap(UserDataLimits.cursorByteCountMax) {
            GatewayExportRequest(accessToken: "t", cursor: Samples.bytes($0))
        }
        Expect.cap(collectionMax) { importing(collection: Samples.ascii($0)) }
        Expect.cap(keyMax) { importing(documents: [.init(key: Samples.ascii($0), value: ByteBuffer())]) }
        Expect.cap(UserDataLimits.valueWireByteCountMax) {
            importing(documents: [.init(key: "k", value: Samples.bytes($0))])
        }
    }

    @Test("Idempotency keys of puts and imports are 1–128 bytes")
    func idempotencyKeys() {
        Expect.cap(GatewayLimits.operationIDByteCountMax) { put(idempotencyKey: Samples.ascii($0)) }
        Expect.cap(GatewayLimits.operationIDByteCountMax) { importing(idempotencyKey: Samples.ascii($0)) }
        #expect(throws: WireError.invalidValue) { try GatewayPutRequest(decoding: put(idempotencyKey: "").encoded()) }
        #expect(throws: WireError.invalidValue) {
            try GatewayImportRequest(decoding: importing(idempotencyKey: "").encoded())
        }
    }

    @Test("A page size is 1 to 1000, as documented: 0 and 1001 are refused")
    func pageSizes() {
        let limit = UserDataLimits.pageSizeLimit
        Expect.cap(limit, refusedWith: .invalidValue) {
            GatewayListRequest(accessToken: "t", collection: "c", pageSize: UInt64($0))
        }
        Expect.cap(limit, refusedWith: .invalidValue) { GatewayExportRequest(accessToken: "t", pageSize: UInt64($0)) }
        for size in [0, UInt64(limit) + 1, .max] {
            let list = GatewayListRequest(accessToken: "t", collection: "c", pageSize: size)
            #expect(throws: WireError.invalidValue) { try GatewayListRequest(decoding: list.encoded()) }
            let export = GatewayExportRequest(accessToken: "t", pageSize: size)
            #expect(throws: WireError.invalidValue) { try GatewayExportRequest(decoding: export.encoded()) }
        }
    }

    @Test("More than 100 documents in one import are refused, and so is a count the body cannot hold")
    func importCounts() {
        let entry = GatewayImportRequest.Entry(key: "", value: ByteBuffer())
        Expect.cap(GatewayLimits.importCountMax) { importing(documents: Array(repeating: entry, count: $0)) }
        let head = Expect.body {
            $0.writeLengthPrefixedString(Samples.accessToken)
            $0.writeLengthPrefixedString("notes")
        }
        for count in Expect.hostileVarints {
            var body = head
            body.writeVarint(count)
            #expect(throws: WireError.lengthOverLimit) { try GatewayImportRequest(decoding: body) }
        }
        // 100 documents announced, each at least 2 bytes, and fewer bytes than that left: refused before any is read.
        var lying = head
        lying.writeVarint(UInt64(GatewayLimits.importCountMax))
        lying.writeRepeatingByte(0, count: 2 * GatewayLimits.importCountMax - 1)
        #expect(throws: WireError.countOverRemaining) { try GatewayImportRequest(decoding: lying) }
    }

    @Test("Presence flags other than 0 or 1 are refused")
    func presenceFlags() {
        for version in [nil, 7] as [UInt64?] {
            let request = put(expectedVersion: version)
            let flag = Expect.body {
                $0.writeLengthPrefixedString(request.accessToken)
                $0.writeLengthPrefixedString(request.collection)
                $0.writeLengthPrefixedString(request.key)
                $0.writeLengthPrefixedBuffer(request.value)
            }.readableBytes
            Expect.tag(of: request, at: flag, valid: [0, 1], validKeepLayout: false)
        }
        for cursor in [nil, ByteBuffer(bytes: [1])] {
            let list = GatewayListRequest(accessToken: "t", collection: "c", cursor: cursor, pageSize: 1)
            Expect.tag(of: list, at: 4, valid: [0, 1], validKeepLayout: false)
            let export = GatewayExportRequest(accessToken: "t", cursor: cursor, pageSize: 1)
            Expect.tag(of: export, at: 2, valid: [0, 1], validKeepLayout: false)
        }
    }
}
