public import FoyerWire
public import NIOCore

/// Writes `value` under (uid, collection, key).
///
/// ```
/// string           uid               <= 64 bytes
/// string           collection        checked: invalid-collection (transport cap 1024 bytes)
/// string           key               checked: invalid-key (transport cap 4096 bytes)
/// bytes            value             any bytes; over the server's cap: value-too-large
/// optional varint  expectedVersion   absent: write whatever is there; 0: create only; n: only if at version n
/// ```
public struct PutDocumentRequest: WireMessage, Hashable {
    public var uid: String
    public var collection: String
    public var key: String
    public var value: ByteBuffer
    public var expectedVersion: UInt64?

    public init(uid: String, collection: String, key: String, value: ByteBuffer, expectedVersion: UInt64? = nil) {
        self.uid = uid
        self.collection = collection
        self.key = key
        self.value = value
        self.expectedVersion = expectedVersion
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("put.uid", maxBytes: UserDataLimits.uidByteCountMax)
        collection = try buffer.readLengthPrefixedString(
            "put.collection",
            maxBytes: UserDataLimits.collectionWireByteCountMax
        )
        key = try buffer.readLengthPrefixedString("put.key", maxBytes: UserDataLimits.keyWireByteCountMax)
        value = try buffer.readLengthPrefixedBuffer("put.value", maxBytes: UserDataLimits.valueWireByteCountMax)
        expectedVersion = try buffer.readBool() ? try buffer.readVarint() : nil
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(uid)
        buffer.writeLengthPrefixedString(collection)
        buffer.writeLengthPrefixedString(key)
        buffer.writeLengthPrefixedBuffer(value)
        buffer.writeBool(expectedVersion != nil)
        if let expectedVersion { buffer.writeVarint(expectedVersion) }
    }
}
