public import FoyerWire
public import NIOCore

/// ```
/// varint  deleted   documents this call deleted (a retry after an interruption counts only what was left)
/// ```
public struct DeleteAllDocumentsResponse: WireMessage, Hashable {
    public var deleted: UInt64

    public init(deleted: UInt64) { self.deleted = deleted }

    public init(from buffer: inout ByteBuffer) throws(WireError) { deleted = try buffer.readVarint() }

    public func encode(into buffer: inout ByteBuffer) { buffer.writeVarint(deleted) }
}
