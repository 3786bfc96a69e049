public import FoyerWire
public import NIOCore

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
