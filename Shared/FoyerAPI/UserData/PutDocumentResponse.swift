public import FoyerWire
public import NIOCore

/// The document was written.
///
/// ```
/// varint  version                 the document's new version
/// i64     updatedAtMicroseconds   the time of this write
/// ```
public struct PutDocumentResponse: WireMessage, Hashable {
    public var version: UInt64
    public var updatedAtMicroseconds: Int64

    public init(version: UInt64, updatedAtMicroseconds: Int64) {
        self.version = version
        self.updatedAtMicroseconds = updatedAtMicroseconds
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        version = try buffer.readVarint()
        updatedAtMicroseconds = try buffer.readWire(Int64.self)
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeVarint(version)
        buffer.writeInteger(updatedAtMicroseconds)
    }
}
