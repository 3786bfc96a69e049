public import FoyerWire
public import NIOCore

/// Whether the feature is on for the account.
///
/// ```
/// string  plan      the account's plan (<= 64 bytes)
/// bool    enabled
/// ```
public struct FeatureCheckResponse: WireMessage, Hashable {
    public var plan: String
    public var enabled: Bool

    public init(plan: String, enabled: Bool) {
        self.plan = plan
        self.enabled = enabled
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        plan = try buffer.readLengthPrefixedString("feature.plan", maxBytes: GuestQuotaLimits.nameByteCountMax)
        enabled = try buffer.readBool()
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(plan)
        buffer.writeBool(enabled)
    }
}
