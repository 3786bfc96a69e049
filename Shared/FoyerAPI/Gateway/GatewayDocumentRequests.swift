public import FoyerWire
public import NIOCore

/// `putDocument`:
/// ```
/// string          accessToken       <= 4096 bytes
/// string          collection        user-data's rules: 1–64 bytes of [A-Za-z0-9_.-]
/// string          key               user-data's rules: 1–256 bytes
/// bytes           value             any bytes up to user-data's value cap
/// optional varint expectedVersion   absent: write whatever is there; 0: create only; n: only at version n
/// string          idempotencyKey    1–128 bytes: a retry with the same key answers the first result; it neither
///                                   writes nor consumes quota again (the key with another write: operation-reused)
/// ```
public struct GatewayPutRequest: WireMessage, Hashable {
    public var accessToken: String
    public var collection: String
    public var key: String
    public var value: ByteBuffer
    public var expectedVersion: UInt64?
    public var idempotencyKey: String

    public init(
        accessToken: String,
        collection: String,
        key: String,
        value: ByteBuffer,
        expectedVersion: UInt64? = nil,
        idempotencyKey: String
    ) {
        self.accessToken = accessToken
        self.collection = collection
        self.key = key
        self.value = value
        self.expectedVersion = expectedVersion
        self.idempotencyKey = idempotencyKey
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        accessToken = try buffer.readAccessToken()
        collection = try buffer.readLengthPrefixedString(
            "put.collection",
            maxBytes: UserDataLimits.collectionWireByteCountMax
        )
        key = try buffer.readLengthPrefixedString("put.key", maxBytes: UserDataLimits.keyWireByteCountMax)
        value = try buffer.readLengthPrefixedBuffer("put.value", maxBytes: UserDataLimits.valueWireByteCountMax)
        expectedVersion = try buffer.readOptional { (buffer) throws(WireError) in try buffer.readVarint() }
        idempotencyKey = try buffer.readOperationID()
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(accessToken)
        buffer.writeLengthPrefixedString(collection)
        buffer.writeLengthPrefixedString(key)
        buffer.writeLengthPrefixedBuffer(value)
        buffer.writeOptional(expectedVersion) { $0.writeVarint($1) }
        buffer.writeLengthPrefixedString(idempotencyKey)
    }
}

/// `getDocument` and `deleteDocument`: `string accessToken`, `string collection`, `string key`.
public struct GatewayDocumentRequest: WireMessage, Hashable {
    public var accessToken: String
    public var collection: String
    public var key: String

    public init(accessToken: String, collection: String, key: String) {
        self.accessToken = accessToken
        self.collection = collection
        self.key = key
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        accessToken = try buffer.readAccessToken()
        collection = try buffer.readLengthPrefixedString(
            "document.collection",
            maxBytes: UserDataLimits.collectionWireByteCountMax
        )
        key = try buffer.readLengthPrefixedString("document.key", maxBytes: UserDataLimits.keyWireByteCountMax)
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(accessToken)
        buffer.writeLengthPrefixedString(collection)
        buffer.writeLengthPrefixedString(key)
    }
}

/// `listDocuments`: `string accessToken`, `string collection`, `optional bytes cursor` (<= 1024, from the
/// previous page), `varint pageSize` (1–1000).
public struct GatewayListRequest: WireMessage, Hashable {
    public var accessToken: String
    public var collection: String
    public var cursor: ByteBuffer?
    public var pageSize: UInt64

    public init(accessToken: String, collection: String, cursor: ByteBuffer? = nil, pageSize: UInt64 = 100) {
        self.accessToken = accessToken
        self.collection = collection
        self.cursor = cursor
        self.pageSize = pageSize
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        accessToken = try buffer.readAccessToken()
        collection = try buffer.readLengthPrefixedString(
            "list.collection",
            maxBytes: UserDataLimits.collectionWireByteCountMax
        )
        cursor = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readLengthPrefixedBuffer("list.cursor", maxBytes: UserDataLimits.cursorByteCountMax)
        }
        pageSize = try buffer.readPageSize("list.pageSize")
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(accessToken)
        buffer.writeLengthPrefixedString(collection)
        buffer.writeOptional(cursor) { $0.writeLengthPrefixedBuffer($1) }
        buffer.writeVarint(pageSize)
    }
}

/// `exportDocuments`: `string accessToken`, `optional bytes cursor` (<= 1024), `varint pageSize` (1–1000).
public struct GatewayExportRequest: WireMessage, Hashable {
    public var accessToken: String
    public var cursor: ByteBuffer?
    public var pageSize: UInt64

    public init(accessToken: String, cursor: ByteBuffer? = nil, pageSize: UInt64 = 100) {
        self.accessToken = accessToken
        self.cursor = cursor
        self.pageSize = pageSize
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        accessToken = try buffer.readAccessToken()
        cursor = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readLengthPrefixedBuffer("export.cursor", maxBytes: UserDataLimits.cursorByteCountMax)
        }
        pageSize = try buffer.readPageSize("export.pageSize")
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(accessToken)
        buffer.writeOptional(cursor) { $0.writeLengthPrefixedBuffer($1) }
        buffer.writeVarint(pageSize)
    }
}

/// `importDocuments` (members only):
/// ```
/// string accessToken
/// string collection
/// list   documents        <= 100 of: string key, bytes value
/// string idempotencyKey   1–128 bytes
/// ```
public struct GatewayImportRequest: WireMessage, Hashable {
    public struct Entry: Hashable, Sendable {
        public var key: String
        public var value: ByteBuffer
        public init(key: String, value: ByteBuffer) {
            self.key = key
            self.value = value
        }
    }

    public var accessToken: String
    public var collection: String
    public var documents: [Entry]
    public var idempotencyKey: String

    public init(accessToken: String, collection: String, documents: [Entry], idempotencyKey: String) {
        self.accessToken = accessToken
        self.collection = collection
        self.documents = documents
        self.idempotencyKey = idempotencyKey
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        accessToken = try buffer.readAccessToken()
        collection = try buffer.readLengthPrefixedString(
            "import.collection",
            maxBytes: UserDataLimits.collectionWireByteCountMax
        )
        let count = try buffer.readCount("import.documents", maxCount: GatewayLimits.importCountMax, minElementBytes: 2)
        documents = []
        documents.reserveCapacity(count)
        for _ in 0..<count {
            let key = try buffer.readLengthPrefixedString("import.key", maxBytes: UserDataLimits.keyWireByteCountMax)
            let value = try buffer.readLengthPrefixedBuffer(
                "import.value",
                maxBytes: UserDataLimits.valueWireByteCountMax
            )
            documents.append(Entry(key: key, value: value))
        }
        idempotencyKey = try buffer.readOperationID()
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(accessToken)
        buffer.writeLengthPrefixedString(collection)
        buffer.writeVarint(UInt64(documents.count))
        for document in documents {
            buffer.writeLengthPrefixedString(document.key)
            buffer.writeLengthPrefixedBuffer(document.value)
        }
        buffer.writeLengthPrefixedString(idempotencyKey)
    }
}

extension ByteBuffer {
    /// Reads a page size of `listDocuments` or `exportDocuments`: 1 to `UserDataLimits.pageSizeLimit`.
    fileprivate mutating func readPageSize(_ field: String) throws(WireError) -> UInt64 {
        let pageSize = try readVarint(field, max: UInt64(UserDataLimits.pageSizeLimit))
        guard pageSize >= 1 else { throw .invalidValue(field) }
        return pageSize
    }
}
