public import FoyerWire
public import NIOCore

/// Asks a service to remove records past their retention: user-data's and guest-quota's `prune`, which cleanup's
/// sweep calls. Each kind of record is removed oldest first, at most `limit` rows of it per call.
///
/// ```
/// varint  limit   1–10000: rows of each kind this call may remove
/// ```
public struct PruneRequest: WireMessage, Hashable {
    /// The most rows of one kind a call may remove.
    public static let limitMax: UInt64 = 10_000

    public var limit: UInt64

    public init(limit: UInt64) { self.limit = limit }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        limit = try buffer.readVarint("prune.limit", max: Self.limitMax)
        guard limit >= 1 else { throw .invalidValue("prune.limit") }
    }

    public func encode(into buffer: inout ByteBuffer) { buffer.writeVarint(limit) }
}
