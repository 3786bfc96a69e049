public import FoyerWire
public import NIOCore

/// Moves the account of `uid` to `plan`.
///
/// ```
/// string  uid    <= 64 bytes
/// string  plan   <= 64 bytes
/// ```
public struct ChangePlanRequest: WireMessage, Hashable {
    public var uid: String
    public var plan: String

    public init(uid: String, plan: String) {
        self.uid = uid
        self.plan = plan
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("changePlan.uid", maxBytes: GuestQuotaLimits.uidByteCountMax)
        plan = try buffer.readLengthPrefixedString("changePlan.plan", maxBytes: GuestQuotaLimits.nameByteCountMax)
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(uid)
        buffer.writeLengthPrefixedString(plan)
    }
}
