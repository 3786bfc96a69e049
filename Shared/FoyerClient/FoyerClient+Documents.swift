public import FoyerAPI
import FoyerWire
public import NIOCore

extension FoyerClient {
    /// Writes a document. A guest's new document first takes quota (`quota-exceeded` with the counts when none
    /// is left).
    ///
    /// - Parameters:
    ///   - expectedVersion: `nil` writes whatever is there; 0 creates only; n writes only over version n
    ///     (`version-mismatch` with `currentVersion` otherwise).
    ///   - idempotencyKey: a retry with the same key takes quota once.
    @discardableResult
    public func put(
        _ collection: String,
        _ key: String,
        value: ByteBuffer,
        expectedVersion: UInt64? = nil,
        idempotencyKey: String = OperationID.make()
    ) async throws(FoyerError) -> PutDocumentResponse {
        try await authorized(GatewayMethods.putDocument) { token in
            GatewayPutRequest(
                accessToken: token,
                collection: collection,
                key: key,
                value: value,
                expectedVersion: expectedVersion,
                idempotencyKey: idempotencyKey
            )
        }
    }

    /// Writes a document whose value is UTF-8 text.
    @discardableResult
    public func put(
        _ collection: String,
        _ key: String,
        _ text: String,
        expectedVersion: UInt64? = nil,
        idempotencyKey: String = OperationID.make()
    ) async throws(FoyerError) -> PutDocumentResponse {
        try await put(
            collection,
            key,
            value: ByteBuffer(string: text),
            expectedVersion: expectedVersion,
            idempotencyKey: idempotencyKey
        )
    }

    /// Writes a document whose value is raw bytes.
    @discardableResult
    public func put(
        _ collection: String,
        _ key: String,
        bytes: [UInt8],
        expectedVersion: UInt64? = nil,
        idempotencyKey: String = OperationID.make()
    ) async throws(FoyerError) -> PutDocumentResponse {
        try await put(
            collection,
            key,
            value: ByteBuffer(bytes: bytes),
            expectedVersion: expectedVersion,
            idempotencyKey: idempotencyKey
        )
    }

    /// The document, or `nil` if there is none.
    public func get(_ collection: String, _ key: String) async throws(FoyerError) -> StoredDocument? {
        try await authorized(GatewayMethods.getDocument) { token in
            GatewayDocumentRequest(accessToken: token, collection: collection, key: key)
        }.document
    }

    /// One page of a collection, in key order; pass the page's `nextCursor` to get the next.
    public func list(
        _ collection: String,
        cursor: ByteBuffer? = nil,
        pageSize: Int = 100
    ) async throws(FoyerError)
        -> DocumentPage
    {
        let size = try Self.checkedPageSize(pageSize)
        return try await authorized(GatewayMethods.listDocuments) { token in
            GatewayListRequest(accessToken: token, collection: collection, cursor: cursor, pageSize: size)
        }
    }

    /// Every document of a collection (all pages).
    public func listAll(_ collection: String, pageSize: Int = 100) async throws(FoyerError) -> [StoredDocument] {
        var documents: [StoredDocument] = []
        var cursor: ByteBuffer?
        repeat {
            let page = try await list(collection, cursor: cursor, pageSize: pageSize)
            documents += page.documents
            cursor = page.nextCursor
        } while cursor != nil
        return documents
    }

    /// Deletes a document and gives its quota back.
    ///
    /// - Returns: false when there was no such document.
    @discardableResult
    public func delete(_ collection: String, _ key: String) async throws(FoyerError) -> Bool {
        try await authorized(GatewayMethods.deleteDocument) { token in
            GatewayDocumentRequest(accessToken: token, collection: collection, key: key)
        }.deleted
    }

    /// One page of every document of the caller ("download my data").
    public func export(cursor: ByteBuffer? = nil, pageSize: Int = 100) async throws(FoyerError) -> DocumentPage {
        let size = try Self.checkedPageSize(pageSize)
        return try await authorized(GatewayMethods.exportDocuments) { token in
            GatewayExportRequest(accessToken: token, cursor: cursor, pageSize: size)
        }
    }

    /// Every document of the caller (all pages of `export`).
    public func exportAll(pageSize: Int = 100) async throws(FoyerError) -> [StoredDocument] {
        var documents: [StoredDocument] = []
        var cursor: ByteBuffer?
        repeat {
            let page = try await export(cursor: cursor, pageSize: pageSize)
            documents += page.documents
            cursor = page.nextCursor
        } while cursor != nil
        return documents
    }

    /// Writes up to 100 documents at once: a members-only feature (`members-only` for a guest).
    ///
    /// - Returns: the documents written.
    @discardableResult
    public func importDocuments(
        _ collection: String,
        _ documents: [(key: String, value: ByteBuffer)],
        idempotencyKey: String = OperationID.make()
    ) async throws(FoyerError) -> UInt64 {
        guard documents.count <= GatewayLimits.importCountMax else {
            throw .invalidInput("at most \(GatewayLimits.importCountMax) documents per import")
        }
        let entries = documents.map { GatewayImportRequest.Entry(key: $0.key, value: $0.value) }
        return try await authorized(GatewayMethods.importDocuments) { token in
            GatewayImportRequest(
                accessToken: token,
                collection: collection,
                documents: entries,
                idempotencyKey: idempotencyKey
            )
        }.written
    }

    private static func checkedPageSize(_ pageSize: Int) throws(FoyerError) -> UInt64 {
        guard (1...UserDataLimits.pageSizeLimit).contains(pageSize) else {
            throw .invalidInput("the page size is 1 to \(UserDataLimits.pageSizeLimit)")
        }
        return UInt64(pageSize)
    }
}

extension StoredDocument {
    /// The value as text, if it is valid UTF-8.
    public var text: String? {
        String(validatingUTF8Bytes: value.readableBytesView)
    }

    /// The value's bytes.
    public var bytes: [UInt8] { Array(value.readableBytesView) }
}
