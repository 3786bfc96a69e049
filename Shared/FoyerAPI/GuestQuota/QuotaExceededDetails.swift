public import FoyerWire
public import NIOCore

/// The `details` of a `quota-exceeded` error: which counter refused, its limit and use, and what was asked, so
/// an app can show "3 of 20 left" and an upgrade prompt.
///
/// ```
/// CounterUsage  usage       the counter as it stands (nothing of the refused amount was counted)
/// varint        requested   the amount the refused consume asked for
/// ```
public struct QuotaExceededDetails: WireMessage, Hashable {
    public var usage: CounterUsage
    public var requested: UInt64

    public init(usage: CounterUsage, requested: UInt64) {
        self.usage = usage
        self.requested = requested
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        usage = try CounterUsage(from: &buffer)
        requested = try buffer.readVarint()
    }

    public func encode(into buffer: inout ByteBuffer) {
        usage.encode(into: &buffer)
        buffer.writeVarint(requested)
    }
}
