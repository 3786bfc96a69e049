public import FoyerWire
public import NIOCore

/// `listDeletions`: `varint limit` (1–1000).
public struct ListDeletionsRequest: WireMessage, Hashable {
    public var limit: UInt64

    public init(limit: UInt64) { self.limit = limit }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        limit = try buffer.readVarint("listDeletions.limit", max: 1000)
        guard limit > 0 else { throw .invalidValue("listDeletions.limit") }
    }

    public func encode(into buffer: inout ByteBuffer) { buffer.writeVarint(limit) }
}
