public import FoyerWire
public import NIOCore

/// `resolveConflict`:
/// ```
/// string accessToken   <= 4096 bytes: the guest the conflict ticket was issued to
/// string ticket        <= 128 bytes: from the conflict's `ConflictDetails`
/// u8     choice        0 merge, 1 discard (2 fail is refused)
/// u8     mergePolicy   MergePolicy
/// string operationID   1–128 bytes
/// ```
public struct ResolveConflictRequest: WireMessage, Hashable {
    public var accessToken: String
    public var ticket: String
    public var choice: ConflictChoice
    public var mergePolicy: MergePolicy
    public var operationID: String

    public init(
        accessToken: String,
        ticket: String,
        choice: ConflictChoice,
        mergePolicy: MergePolicy,
        operationID: String
    ) {
        self.accessToken = accessToken
        self.ticket = ticket
        self.choice = choice
        self.mergePolicy = mergePolicy
        self.operationID = operationID
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        accessToken = try buffer.readAccessToken()
        ticket = try buffer.readLengthPrefixedString("resolve.ticket", maxBytes: IdentityLimits.secretTokenByteCountMax)
        choice = try buffer.readEnum(ConflictChoice.self, "resolve.choice")
        guard choice != .fail else { throw .invalidValue("resolve.choice") }
        mergePolicy = try buffer.readEnum(MergePolicy.self, "resolve.mergePolicy")
        operationID = try buffer.readOperationID()
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(accessToken)
        buffer.writeLengthPrefixedString(ticket)
        buffer.writeInteger(choice.rawValue)
        buffer.writeInteger(mergePolicy.rawValue)
        buffer.writeLengthPrefixedString(operationID)
    }
}
