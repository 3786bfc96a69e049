public import FoyerWire
public import NIOCore

/// Asks for one page of every document of `uid`, ordered by collection then key (bytewise).
///
/// ```
/// string          uid        <= 64 bytes
/// optional bytes  cursor     absent for the first page; then the previous page's nextCursor (<= 1024 bytes)
/// varint          pageSize   most documents wanted; 0 for the server's default; over its cap: page-size-too-large
/// ```
public struct ExportDocumentsRequest: WireMessage, Hashable {
    public var uid: String
    public var cursor: ByteBuffer?
    public var pageSize: UInt64

    public init(uid: String, cursor: ByteBuffer? = nil, pageSize: UInt64 = 0) {
        self.uid = uid
        self.cursor = cursor
        self.pageSize = pageSize
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("export.uid", maxBytes: UserDataLimits.uidByteCountMax)
        cursor =
            try buffer.readBool()
            ? try buffer.readLengthPrefixedBuffer("export.cursor", maxBytes: UserDataLimits.cursorByteCountMax) : nil
        pageSize = try buffer.readVarint()
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(uid)
        buffer.writeBool(cursor != nil)
        if let cursor { buffer.writeLengthPrefixedBuffer(cursor) }
        buffer.writeVarint(pageSize)
    }
}
