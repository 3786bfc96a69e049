public import FoyerWire
public import NIOCore

/// Deletes the quota account of `uid` with its counters and consume records.
///
/// ```
/// string  uid   <= 64 bytes
/// ```
public struct QuotaDeleteAllRequest: WireMessage, Hashable {
    public var uid: String

    public init(uid: String) { self.uid = uid }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("deleteAll.uid", maxBytes: GuestQuotaLimits.uidByteCountMax)
    }

    public func encode(into buffer: inout ByteBuffer) { buffer.writeLengthPrefixedString(uid) }
}
