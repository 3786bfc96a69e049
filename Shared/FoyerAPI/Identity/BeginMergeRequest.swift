public import FoyerWire
public import NIOCore

/// `beginMerge` request.
///
/// ```
/// string guestUID      <= 64 bytes: the guest that goes away
/// string accountUID    <= 64 bytes: the account it is merged into
/// string operationID   1–128 bytes: the caller's id for this merge; repeating the call with it is harmless
/// ```
public struct BeginMergeRequest: WireMessage, Hashable {
    public var guestUID: String
    public var accountUID: String
    public var operationID: String

    public init(guestUID: String, accountUID: String, operationID: String) {
        self.guestUID = guestUID
        self.accountUID = accountUID
        self.operationID = operationID
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        guestUID = try buffer.readLengthPrefixedString("merge.guestUID", maxBytes: IdentityLimits.uidByteCountMax)
        accountUID = try buffer.readLengthPrefixedString("merge.accountUID", maxBytes: IdentityLimits.uidByteCountMax)
        operationID = try buffer.readLengthPrefixedString(
            "merge.operationID",
            maxBytes: IdentityLimits.operationIDByteCountMax
        )
        guard !operationID.isEmpty else { throw .invalidValue("merge.operationID") }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(guestUID)
        buffer.writeLengthPrefixedString(accountUID)
        buffer.writeLengthPrefixedString(operationID)
    }
}
