public import FoyerWire
public import NIOCore

/// ```
/// varint  documents
/// varint  valueBytes   the bytes of their values
/// ```
public struct CountDocumentsResponse: WireMessage, Hashable {
    public var documents: UInt64
    public var valueBytes: UInt64

    public init(documents: UInt64, valueBytes: UInt64) {
        self.documents = documents
        self.valueBytes = valueBytes
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        documents = try buffer.readVarint()
        valueBytes = try buffer.readVarint()
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeVarint(documents)
        buffer.writeVarint(valueBytes)
    }
}
