public import FoyerWire
public import NIOCore

/// Asks for one page of a collection of `uid`, in bytewise key order.
///
/// ```
/// string          uid          <= 64 bytes
/// string          collection   checked: invalid-collection (transport cap 1024 bytes)
/// optional bytes  cursor       absent for the first page; then the previous page's nextCursor (<= 1024 bytes)
/// varint          pageSize     most documents wanted; 0 for the server's default; over its cap: page-size-too-large
/// ```
public struct ListDocumentsRequest: WireMessage, Hashable {
    public var uid: String
    public var collection: String
    public var cursor: ByteBuffer?
    public var pageSize: UInt64

    public init(uid: String, collection: String, cursor: ByteBuffer? = nil, pageSize: UInt64 = 0) {
        self.uid = uid
        self.collection = collection
        self.cursor = cursor
        self.pageSize = pageSize
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("list.uid", maxBytes: UserDataLimits.uidByteCountMax)
        collection = try buffer.readLengthPrefixedString(
            "list.collection",
            maxBytes: UserDataLimits.collectionWireByteCountMax
        )
        cursor =
            try buffer.readBool()
            ? try buffer.readLengthPrefixedBuffer("list.cursor", maxBytes: UserDataLimits.cursorByteCountMax) : nil
        pageSize = try buffer.readVarint()
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(uid)
        buffer.writeLengthPrefixedString(collection)
        buffer.writeBool(cursor != nil)
        if let cursor { buffer.writeLengthPrefixedBuffer(cursor) }
        buffer.writeVarint(pageSize)
    }
}
