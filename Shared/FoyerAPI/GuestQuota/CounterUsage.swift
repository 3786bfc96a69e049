public import FoyerWire
public import NIOCore

/// One counter of an account: its limit under the account's plan, what is used and what remains.
///
/// ```
/// string  counter     <= 64 bytes
/// varint  limit
/// varint  used        may exceed the limit after a merge or a plan change
/// varint  remaining   max(0, limit - used)
/// ```
public struct CounterUsage: WireMessage, Hashable {
    public var counter: String
    public var limit: UInt64
    public var used: UInt64
    public var remaining: UInt64

    public init(counter: String, limit: UInt64, used: UInt64) {
        self.counter = counter
        self.limit = limit
        self.used = used
        self.remaining = used >= limit ? 0 : limit - used
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        counter = try buffer.readLengthPrefixedString("counter.name", maxBytes: GuestQuotaLimits.nameByteCountMax)
        limit = try buffer.readVarint()
        used = try buffer.readVarint()
        remaining = try buffer.readVarint()
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(counter)
        buffer.writeVarint(limit)
        buffer.writeVarint(used)
        buffer.writeVarint(remaining)
    }
}

/// A feature of a plan and whether it is on.
///
/// ```
/// string  feature   <= 64 bytes
/// bool    enabled
/// ```
public struct FeatureFlag: WireMessage, Hashable {
    public var feature: String
    public var enabled: Bool

    public init(feature: String, enabled: Bool) {
        self.feature = feature
        self.enabled = enabled
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        feature = try buffer.readLengthPrefixedString("feature.name", maxBytes: GuestQuotaLimits.nameByteCountMax)
        enabled = try buffer.readBool()
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(feature)
        buffer.writeBool(enabled)
    }
}
