public import FoyerWire
public import NIOCore

/// Deletes the document (uid, collection, key).
///
/// ```
/// string           uid               <= 64 bytes
/// string           collection        checked: invalid-collection (transport cap 1024 bytes)
/// string           key               checked: invalid-key (transport cap 4096 bytes)
/// optional varint  expectedVersion   absent: delete whatever is there; n: only if at version n
/// ```
public struct DeleteDocumentRequest: WireMessage, Hashable {
    public var uid: String
    public var collection: String
    public var key: String
    public var expectedVersion: UInt64?

    public init(uid: String, collection: String, key: String, expectedVersion: UInt64? = nil) {
        self.uid = uid
        self.collection = collection
        self.key = key
        self.expectedVersion = expectedVersion
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("delete.uid", maxBytes: UserDataLimits.uidByteCountMax)
        collection = try buffer.readLengthPrefixedString(
            "delete.collection",
            maxBytes: UserDataLimits.collectionWireByteCountMax
        )
        key = try buffer.readLengthPrefixedString("delete.key", maxBytes: UserDataLimits.keyWireByteCountMax)
        expectedVersion = try buffer.readBool() ? try buffer.readVarint() : nil
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(uid)
        buffer.writeLengthPrefixedString(collection)
        buffer.writeLengthPrefixedString(key)
        buffer.writeBool(expectedVersion != nil)
        if let expectedVersion { buffer.writeVarint(expectedVersion) }
    }
}
