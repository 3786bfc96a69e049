public import FoyerWire
public import NIOCore

/// The `details` of `value-too-large`.
///
/// ```
/// varint  size    bytes of the value sent
/// varint  limit   the server's cap
/// ```
public struct ValueTooLargeDetails: WireMessage, Hashable {
    public var size: UInt64
    public var limit: UInt64

    public init(size: UInt64, limit: UInt64) {
        self.size = size
        self.limit = limit
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        size = try buffer.readVarint()
        limit = try buffer.readVarint()
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeVarint(size)
        buffer.writeVarint(limit)
    }
}

/// The `details` of `version-mismatch`.
///
/// ```
/// varint  currentVersion   the document's version now; 0 when it does not exist
/// ```
public struct VersionMismatchDetails: WireMessage, Hashable {
    public var currentVersion: UInt64

    public init(currentVersion: UInt64) { self.currentVersion = currentVersion }

    public init(from buffer: inout ByteBuffer) throws(WireError) { currentVersion = try buffer.readVarint() }

    public func encode(into buffer: inout ByteBuffer) { buffer.writeVarint(currentVersion) }
}
