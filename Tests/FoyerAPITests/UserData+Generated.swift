import FoyerAPI
import FoyerWire
import NIOCore

extension ServiceGenerators {
    static let userData = ServiceGenerators(
        service: "user-data",
        table: UserDataMethods.all,
        methods: [
            MethodChecks(UserDataMethods.put),
            MethodChecks(UserDataMethods.get),
            MethodChecks(UserDataMethods.list),
            MethodChecks(UserDataMethods.delete),
            MethodChecks(UserDataMethods.count),
            MethodChecks(UserDataMethods.merge),
            MethodChecks(UserDataMethods.deleteAll),
            MethodChecks(UserDataMethods.deleteAllBatch),
            MethodChecks(UserDataMethods.export),
            MethodChecks(UserDataMethods.putOnce),
            MethodChecks(UserDataMethods.lookupPut),
            MethodChecks(UserDataMethods.prune),
        ],
        details: [RoundTripCheck(ValueTooLargeDetails.self), RoundTripCheck(VersionMismatchDetails.self)]
    )
}

/// User-data's fields at their wire limits: requests carry collections and keys up to the wire caps (the service
/// checks the stricter names itself), stored documents and merge reports only valid ones.
extension WireValues {
    mutating func dataUID() -> String { text(.uid, maxBytes: UserDataLimits.uidByteCountMax) }
    mutating func wireCollection() -> String { text(maxBytes: UserDataLimits.collectionWireByteCountMax) }
    mutating func wireKey() -> String { text(maxBytes: UserDataLimits.keyWireByteCountMax) }
    mutating func collection() -> String { text(.collection, maxBytes: UserDataLimits.collectionByteCountMax) }
    mutating func key() -> String { text(.printableUnicode, maxBytes: UserDataLimits.keyByteCountMax) }
    mutating func dataOperationID() -> String {
        text(.printableASCII, maxBytes: UserDataLimits.operationIDByteCountMax)
    }
    mutating func value() -> ByteBuffer { buffer(maxBytes: UserDataLimits.valueWireByteCountMax) }
    mutating func cursor() -> ByteBuffer? { optional { $0.buffer(maxBytes: UserDataLimits.cursorByteCountMax) } }
    mutating func requestDigest() -> [UInt8] { bytes(minBytes: 1, maxBytes: UserDataLimits.requestDigestByteCountMax) }
}

extension PutDocumentRequest: Generated {
    static func generate(_ values: inout WireValues) -> PutDocumentRequest {
        PutDocumentRequest(
            uid: values.dataUID(),
            collection: values.wireCollection(),
            key: values.wireKey(),
            value: values.value(),
            expectedVersion: values.optional { $0.integer() }
        )
    }
}

extension PutDocumentResponse: Generated {
    static func generate(_ values: inout WireValues) -> PutDocumentResponse {
        PutDocumentResponse(version: values.integer(), updatedAtMicroseconds: values.integer())
    }
}

extension GetDocumentRequest: Generated {
    static func generate(_ values: inout WireValues) -> GetDocumentRequest {
        GetDocumentRequest(uid: values.dataUID(), collection: values.wireCollection(), key: values.wireKey())
    }
}

extension StoredDocument: Generated {
    static func generate(_ values: inout WireValues) -> StoredDocument {
        StoredDocument(
            collection: values.collection(),
            key: values.key(),
            value: values.value(),
            version: values.integer(),
            updatedAtMicroseconds: values.integer()
        )
    }
}

extension GetDocumentResponse: Generated {
    static func generate(_ values: inout WireValues) -> GetDocumentResponse {
        GetDocumentResponse(document: values.optional { $0.message() })
    }
}

extension ListDocumentsRequest: Generated {
    static func generate(_ values: inout WireValues) -> ListDocumentsRequest {
        ListDocumentsRequest(
            uid: values.dataUID(),
            collection: values.wireCollection(),
            cursor: values.cursor(),
            pageSize: values.integer()
        )
    }
}

extension DocumentPage: Generated {
    static func generate(_ values: inout WireValues) -> DocumentPage {
        DocumentPage(
            documents: values.list(maxCount: UserDataLimits.pageSizeLimit) { $0.message() },
            nextCursor: values.cursor()
        )
    }
}

extension DeleteDocumentRequest: Generated {
    static func generate(_ values: inout WireValues) -> DeleteDocumentRequest {
        DeleteDocumentRequest(
            uid: values.dataUID(),
            collection: values.wireCollection(),
            key: values.wireKey(),
            expectedVersion: values.optional { $0.integer() }
        )
    }
}

extension DeleteDocumentResponse: Generated {
    static func generate(_ values: inout WireValues) -> DeleteDocumentResponse {
        DeleteDocumentResponse(deleted: values.bool())
    }
}

extension CountDocumentsRequest: Generated {
    static func generate(_ values: inout WireValues) -> CountDocumentsRequest {
        CountDocumentsRequest(uid: values.dataUID(), collection: values.optional { $0.wireCollection() })
    }
}

extension CountDocumentsResponse: Generated {
    static func generate(_ values: inout WireValues) -> CountDocumentsResponse {
        CountDocumentsResponse(documents: values.integer(), valueBytes: values.integer())
    }
}

extension MergeDocumentsRequest: Generated {
    static func generate(_ values: inout WireValues) -> MergeDocumentsRequest {
        MergeDocumentsRequest(
            fromUID: values.dataUID(),
            toUID: values.dataUID(),
            op: values.dataOperationID(),
            policy: values.anyCase(of: MergePolicy.self)
        )
    }
}

extension MergeReport: Generated {
    static func generate(_ values: inout WireValues) -> MergeReport {
        MergeReport(
            moved: values.integer(),
            conflicts: values.integer(),
            keptAccount: values.integer(),
            keptGuest: values.integer(),
            keptBoth: values.integer(),
            listedConflicts: values.list(maxCount: UserDataLimits.listedConflictsMax) {
                Conflict(
                    collection: $0.collection(),
                    key: $0.key(),
                    resolution: $0.pick([.keptAccount, .keptGuest, .keptBoth]),
                    derivedKey: $0.optional { $0.key() }
                )
            }
        )
    }
}

extension DeleteAllDocumentsRequest: Generated {
    static func generate(_ values: inout WireValues) -> DeleteAllDocumentsRequest {
        DeleteAllDocumentsRequest(uid: values.dataUID())
    }
}

extension DeleteAllDocumentsResponse: Generated {
    static func generate(_ values: inout WireValues) -> DeleteAllDocumentsResponse {
        DeleteAllDocumentsResponse(deleted: values.integer())
    }
}

extension ExportDocumentsRequest: Generated {
    static func generate(_ values: inout WireValues) -> ExportDocumentsRequest {
        ExportDocumentsRequest(uid: values.dataUID(), cursor: values.cursor(), pageSize: values.integer())
    }
}

extension PutOnceRequest: Generated {
    static func generate(_ values: inout WireValues) -> PutOnceRequest {
        PutOnceRequest(
            uid: values.dataUID(),
            collection: values.wireCollection(),
            key: values.wireKey(),
            value: values.value(),
            expectedVersion: values.optional { $0.integer() },
            base: values.message(),
            op: values.dataOperationID(),
            attempt: values.dataOperationID(),
            requestDigest: values.requestDigest()
        )
    }
}

extension PutOnceResponse: Generated {
    static func generate(_ values: inout WireValues) -> PutOnceResponse {
        switch values.integer(in: UInt8(0)...2) {
        case 0: .written(values.message())
        case 1: .replayed(values.message())
        default: .found(values.message())
        }
    }
}

extension PutBase: Generated {
    /// No document has no size and no time.
    static func generate(_ values: inout WireValues) -> PutBase {
        let version: UInt64 = values.integer()
        guard version > 0 else { return .absent }
        return PutBase(version: version, size: values.integer(), updatedAtMicroseconds: values.integer())
    }
}

extension LookupPutRequest: Generated {
    static func generate(_ values: inout WireValues) -> LookupPutRequest {
        LookupPutRequest(
            uid: values.dataUID(),
            collection: values.wireCollection(),
            key: values.wireKey(),
            op: values.dataOperationID(),
            requestDigest: values.requestDigest()
        )
    }
}

extension LookupPutResponse: Generated {
    /// At most one of the two: a recorded answer, or the document as stored now.
    static func generate(_ values: inout WireValues) -> LookupPutResponse {
        switch values.integer(in: UInt8(0)...2) {
        case 0: LookupPutResponse(recorded: values.message(), document: nil)
        case 1: LookupPutResponse(recorded: nil, document: values.message())
        default: LookupPutResponse(recorded: nil, document: nil)
        }
    }
}

extension ValueTooLargeDetails: Generated {
    static func generate(_ values: inout WireValues) -> ValueTooLargeDetails {
        ValueTooLargeDetails(size: values.integer(), limit: values.integer())
    }
}

extension VersionMismatchDetails: Generated {
    static func generate(_ values: inout WireValues) -> VersionMismatchDetails {
        VersionMismatchDetails(currentVersion: values.integer())
    }
}
