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
