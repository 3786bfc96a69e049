public import FoyerWire
public import NIOCore

/// What a `prune` call removed.
///
/// ```
/// varint  removed   rows removed by this call, all kinds together; 0 when nothing was past its retention
/// ```
public struct PruneResponse: WireMessage, Hashable {
    public var removed: UInt64

    public init(removed: UInt64) { self.removed = removed }

    public init(from buffer: inout ByteBuffer) throws(WireError) { removed = try buffer.readVarint() }

    public func encode(into buffer: inout ByteBuffer) { buffer.writeVarint(removed) }
}
