public import FoyerWire
public import NIOCore

/// `importDocuments`: `varint written`.
public struct ImportResponse: WireMessage, Hashable {
    public var written: UInt64

    public init(written: UInt64) { self.written = written }

    public init(from buffer: inout ByteBuffer) throws(WireError) { written = try buffer.readVarint() }

    public func encode(into buffer: inout ByteBuffer) { buffer.writeVarint(written) }
}
