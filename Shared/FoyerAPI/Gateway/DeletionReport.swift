public import FoyerWire
public import NIOCore

/// `deleteAccount`: `varint documentsDeleted` — the documents this call deleted; a retry whose earlier attempt (or
/// cleanup's recovery) had already deleted them answers fewer, down to 0.
public struct DeletionReport: WireMessage, Hashable {
    public var documentsDeleted: UInt64

    public init(documentsDeleted: UInt64) { self.documentsDeleted = documentsDeleted }

    public init(from buffer: inout ByteBuffer) throws(WireError) { documentsDeleted = try buffer.readVarint() }

    public func encode(into buffer: inout ByteBuffer) { buffer.writeVarint(documentsDeleted) }
}
