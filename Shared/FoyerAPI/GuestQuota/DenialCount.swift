public import FoyerWire
public import NIOCore

/// How many requests guest-quota refused for one kind of denial in a window (``GuestQuotaStats/denialsByKind``).
///
/// ```
/// string  kind    <= 64 bytes: the plan counter of a refused consume (`documents`, ...), or `signup` for a
///                 refused admission (rate limit or guest cap)
/// varint  count
/// ```
public struct DenialCount: WireMessage, Hashable {
    public var kind: String
    public var count: UInt64

    public init(kind: String, count: UInt64) {
        self.kind = kind
        self.count = count
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        kind = try buffer.readLengthPrefixedString("denial.kind", maxBytes: GuestQuotaLimits.nameByteCountMax)
        count = try buffer.readVarint()
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(kind)
        buffer.writeVarint(count)
    }
}
