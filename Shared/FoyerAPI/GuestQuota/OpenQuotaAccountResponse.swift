public import FoyerWire
public import NIOCore

/// The account is open.
///
/// ```
/// bool    created   false when it was open already (a retry): nothing changed, not even its plan
/// string  plan      the account's plan now (<= 64 bytes)
/// ```
public struct OpenQuotaAccountResponse: WireMessage, Hashable {
    public var created: Bool
    public var plan: String

    public init(created: Bool, plan: String) {
        self.created = created
        self.plan = plan
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        created = try buffer.readBool()
        plan = try buffer.readLengthPrefixedString("openAccount.plan", maxBytes: GuestQuotaLimits.nameByteCountMax)
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeBool(created)
        buffer.writeLengthPrefixedString(plan)
    }
}
