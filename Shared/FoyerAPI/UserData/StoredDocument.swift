public import FoyerWire
public import NIOCore

/// A document as user-data answers it.
///
/// ```
/// string  collection              <= 64 bytes
/// string  key                     <= 256 bytes
/// bytes   value                   any bytes, <= the server's value cap
/// varint  version                 1 when created, +1 on every write
/// i64     updatedAtMicroseconds   time of the last write, microseconds since the Unix epoch
/// ```
public struct StoredDocument: WireMessage, Hashable {
    public var collection: String
    public var key: String
    public var value: ByteBuffer
    public var version: UInt64
    public var updatedAtMicroseconds: Int64

    public init(collection: String, key: String, value: ByteBuffer, version: UInt64, updatedAtMicroseconds: Int64) {
        self.collection = collection
        self.key = key
        self.value = value
        self.version = version
        self.updatedAtMicroseconds = updatedAtMicroseconds
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        collection = try buffer.readLengthPrefixedString(
            "document.collection",
            maxBytes: UserDataLimits.collectionByteCountMax
        )
        key = try buffer.readLengthPrefixedString("document.key", maxBytes: UserDataLimits.keyByteCountMax)
        value = try buffer.readLengthPrefixedBuffer("document.value", maxBytes: UserDataLimits.valueWireByteCountMax)
        version = try buffer.readVarint()
        updatedAtMicroseconds = try buffer.readWire(Int64.self)
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(collection)
        buffer.writeLengthPrefixedString(key)
        buffer.writeLengthPrefixedBuffer(value)
        buffer.writeVarint(version)
        buffer.writeInteger(updatedAtMicroseconds)
    }

    /// Bytes this document takes in a body, for cutting pages by size.
    public var encodedByteCount: Int {
        collection.utf8.count + key.utf8.count + value.readableBytes + 3 * 10 + 8
    }
}
