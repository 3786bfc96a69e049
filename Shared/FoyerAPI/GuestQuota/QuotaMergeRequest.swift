public import FoyerWire
public import NIOCore

/// Adds the usage of guest `fromUID` to account `toUID` and deletes the guest's quota account, once per `op`.
///
/// ```
/// string  fromUID   the guest (<= 64 bytes)
/// string  toUID     the account (<= 64 bytes), not the guest
/// string  op        the link-or-merge operation's id (1-128 bytes of printable ASCII)
/// ```
public struct QuotaMergeRequest: WireMessage, Hashable {
    public var fromUID: String
    public var toUID: String
    public var op: String

    public init(fromUID: String, toUID: String, op: String) {
        self.fromUID = fromUID
        self.toUID = toUID
        self.op = op
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        fromUID = try buffer.readLengthPrefixedString("merge.fromUID", maxBytes: GuestQuotaLimits.uidByteCountMax)
        toUID = try buffer.readLengthPrefixedString("merge.toUID", maxBytes: GuestQuotaLimits.uidByteCountMax)
        op = try buffer.readLengthPrefixedString("merge.op", maxBytes: GuestQuotaLimits.operationKeyByteCountMax)
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(fromUID)
        buffer.writeLengthPrefixedString(toUID)
        buffer.writeLengthPrefixedString(op)
    }
}
