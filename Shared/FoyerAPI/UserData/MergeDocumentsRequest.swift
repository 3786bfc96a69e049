public import FoyerWire
public import NIOCore

/// Moves every document of guest `fromUID` to account `toUID`, once per `op`.
///
/// ```
/// string  fromUID   the guest (<= 64 bytes)
/// string  toUID     the account (<= 64 bytes), not the guest
/// string  op        the operation's id (1-128 bytes of printable ASCII); a retry sends the same
/// u8      policy    MergePolicy
/// ```
public struct MergeDocumentsRequest: WireMessage, Hashable {
    public var fromUID: String
    public var toUID: String
    public var op: String
    public var policy: MergePolicy

    public init(fromUID: String, toUID: String, op: String, policy: MergePolicy) {
        self.fromUID = fromUID
        self.toUID = toUID
        self.op = op
        self.policy = policy
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        fromUID = try buffer.readLengthPrefixedString("merge.fromUID", maxBytes: UserDataLimits.uidByteCountMax)
        toUID = try buffer.readLengthPrefixedString("merge.toUID", maxBytes: UserDataLimits.uidByteCountMax)
        op = try buffer.readLengthPrefixedString("merge.op", maxBytes: UserDataLimits.operationIDByteCountMax)
        guard let policy = MergePolicy(rawValue: try buffer.readWire()) else { throw .invalidValue("merge.policy") }
        self.policy = policy
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(fromUID)
        buffer.writeLengthPrefixedString(toUID)
        buffer.writeLengthPrefixedString(op)
        buffer.writeInteger(policy.rawValue)
    }
}
