public import FoyerWire
public import NIOCore

/// A guest past the inactivity cutoff (an element of ``ExpiredGuests``), also used as the paging cursor.
///
/// ```
/// string uid                          <= 64 bytes
/// u64    lastActivityAtMilliseconds   since the Unix epoch
/// ```
public struct ExpiredGuest: WireMessage, Hashable {
    public var uid: String
    public var lastActivityAtMilliseconds: UInt64

    public init(uid: String, lastActivityAtMilliseconds: UInt64) {
        self.uid = uid
        self.lastActivityAtMilliseconds = lastActivityAtMilliseconds
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("expired.uid", maxBytes: IdentityLimits.uidByteCountMax)
        lastActivityAtMilliseconds = try buffer.readWire()
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(uid)
        buffer.writeInteger(lastActivityAtMilliseconds)
    }
}
