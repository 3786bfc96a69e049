public import FoyerWire
public import NIOCore

/// Asks for every counter and feature of `uid`.
///
/// ```
/// string  uid   <= 64 bytes
/// ```
public struct QuotaUsageRequest: WireMessage, Hashable {
    public var uid: String

    public init(uid: String) { self.uid = uid }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("usage.uid", maxBytes: GuestQuotaLimits.uidByteCountMax)
    }

    public func encode(into buffer: inout ByteBuffer) { buffer.writeLengthPrefixedString(uid) }
}
