public import FoyerWire
public import NIOCore

/// `setUserPlan` request: the plan identity writes into the user's access tokens from now on (the `plan` claim).
/// guest-quota holds the plan's limits and features; the gateway changes both.
///
/// ```
/// string uid    <= 64 bytes
/// string plan   1-64 bytes of a-z 0-9 _ . -
/// ```
public struct SetUserPlanRequest: WireMessage, Hashable {
    public var uid: String
    public var plan: String

    public init(uid: String, plan: String) {
        self.uid = uid
        self.plan = plan
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("setUserPlan.uid", maxBytes: IdentityLimits.uidByteCountMax)
        plan = try buffer.readLengthPrefixedString("setUserPlan.plan", maxBytes: IdentityLimits.grantNameByteCountMax)
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(uid)
        buffer.writeLengthPrefixedString(plan)
    }
}
