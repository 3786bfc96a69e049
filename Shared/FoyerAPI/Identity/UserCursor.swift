public import FoyerWire
public import NIOCore

/// Where a page of ``UserSummaries`` ended: the ordering time of its last user and that user's uid (keyset paging on
/// (order column, uid), so users with the same time are neither repeated nor skipped).
///
/// ```
/// u64    atMilliseconds   the created-at or last-activity time of the last user, as the listing was ordered
/// string uid              <= 64 bytes
/// ```
public struct UserCursor: WireMessage, Hashable {
    public var atMilliseconds: UInt64
    public var uid: String

    public init(atMilliseconds: UInt64, uid: String) {
        self.atMilliseconds = atMilliseconds
        self.uid = uid
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        atMilliseconds = try buffer.readWire()
        uid = try buffer.readLengthPrefixedString("cursor.uid", maxBytes: IdentityLimits.uidByteCountMax)
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeInteger(atMilliseconds)
        buffer.writeLengthPrefixedString(uid)
    }
}
