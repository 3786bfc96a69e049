public import FoyerWire
public import NIOCore

/// Counts the documents of `uid`, in one collection or in all.
///
/// ```
/// string            uid          <= 64 bytes
/// optional string   collection   absent: every collection (transport cap 1024 bytes)
/// ```
public struct CountDocumentsRequest: WireMessage, Hashable {
    public var uid: String
    public var collection: String?

    public init(uid: String, collection: String? = nil) {
        self.uid = uid
        self.collection = collection
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("count.uid", maxBytes: UserDataLimits.uidByteCountMax)
        collection =
            try buffer.readBool()
            ? try buffer.readLengthPrefixedString(
                "count.collection",
                maxBytes: UserDataLimits.collectionWireByteCountMax
            ) : nil
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(uid)
        buffer.writeBool(collection != nil)
        if let collection { buffer.writeLengthPrefixedString(collection) }
    }
}
