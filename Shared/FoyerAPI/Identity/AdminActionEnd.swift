public import FoyerWire
public import NIOCore

/// `endAdminAction` request: how an audited action ended. The first outcome recorded stays.
///
/// ```
/// u64    id        from beginAdminAction
/// string outcome   1–64 bytes: "ok" or an RPC status name
/// ```
public struct AdminActionEnd: WireMessage, Hashable {
    public var id: UInt64
    public var outcome: String

    public init(id: UInt64, outcome: String) {
        self.id = id
        self.outcome = outcome
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        id = try buffer.readWire()
        outcome = try buffer.readLengthPrefixedString(
            "adminAction.outcome",
            maxBytes: IdentityLimits.adminOutcomeByteCountMax
        )
        guard !outcome.isEmpty else { throw .invalidValue("adminAction.outcome") }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeInteger(id)
        buffer.writeLengthPrefixedString(outcome)
    }
}
