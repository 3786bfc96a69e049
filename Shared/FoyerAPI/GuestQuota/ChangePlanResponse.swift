public import FoyerWire
public import NIOCore

/// The plan was changed (or already was the one asked for).
///
/// ```
/// string  previousPlan   <= 64 bytes; equal to plan when nothing changed
/// string  plan           <= 64 bytes
/// ```
public struct ChangePlanResponse: WireMessage, Hashable {
    public var previousPlan: String
    public var plan: String

    public init(previousPlan: String, plan: String) {
        self.previousPlan = previousPlan
        self.plan = plan
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        previousPlan = try buffer.readLengthPrefixedString(
            "changePlan.previousPlan",
            maxBytes: GuestQuotaLimits.nameByteCountMax
        )
        plan = try buffer.readLengthPrefixedString("changePlan.plan", maxBytes: GuestQuotaLimits.nameByteCountMax)
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(previousPlan)
        buffer.writeLengthPrefixedString(plan)
    }
}
