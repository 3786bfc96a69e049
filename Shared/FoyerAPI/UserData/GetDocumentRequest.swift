public import FoyerWire
public import NIOCore

/// Names one document: `GetDocumentRequest`.
///
/// ```
/// string  uid          <= 64 bytes
/// string  collection   checked: invalid-collection (transport cap 1024 bytes)
/// string  key          checked: invalid-key (transport cap 4096 bytes)
/// ```
public struct GetDocumentRequest: WireMessage, Hashable {
    public var uid: String
    public var collection: String
    public var key: String

    public init(uid: String, collection: String, key: String) {
        self.uid = uid
        self.collection = collection
        self.key = key
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("get.uid", maxBytes: UserDataLimits.uidByteCountMax)
        collection = try buffer.readLengthPrefixedString(
            "get.collection",
            maxBytes: UserDataLimits.collectionWireByteCountMax
        )
        key = try buffer.readLengthPrefixedString("get.key", maxBytes: UserDataLimits.keyWireByteCountMax)
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(uid)
        buffer.writeLengthPrefixedString(collection)
        buffer.writeLengthPrefixedString(key)
    }
}
