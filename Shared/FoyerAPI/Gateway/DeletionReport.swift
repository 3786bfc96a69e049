public import FoyerWire
public import NIOCore

/// `deleteAccount`: `varint documentsDeleted` — over every attempt under the operation id.
public struct DeletionReport: WireMessage, Hashable {
    public var documentsDeleted: UInt64

    public init(documentsDeleted: UInt64) { self.documentsDeleted = documentsDeleted }

    public init(from buffer: inout ByteBuffer) throws(WireError) { documentsDeleted = try buffer.readVarint() }

    public func encode(into buffer: inout ByteBuffer) { buffer.writeVarint(documentsDeleted) }
}
