public import FoyerWire
public import NIOCore

/// `link`:
/// ```
/// string     accessToken   <= 4096 bytes: the guest (or member) to link to
/// Credential credential
/// u8         onConflict    ConflictChoice: 0 merge, 1 discard, 2 fail
/// u8         mergePolicy   MergePolicy for colliding document keys: 0 keep-account, 1 keep-guest, 2 keep-newest, 3 keep-both
/// string     operationID   1–128 bytes
/// ```
public struct LinkRequest: WireMessage, Hashable {
    public var accessToken: String
    public var credential: Credential
    public var onConflict: ConflictChoice
    public var mergePolicy: MergePolicy
    public var operationID: String

    public init(
        accessToken: String,
        credential: Credential,
        onConflict: ConflictChoice,
        mergePolicy: MergePolicy,
        operationID: String
    ) {
        self.accessToken = accessToken
        self.credential = credential
        self.onConflict = onConflict
        self.mergePolicy = mergePolicy
        self.operationID = operationID
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        accessToken = try buffer.readAccessToken()
        credential = try Credential(from: &buffer)
        onConflict = try buffer.readEnum(ConflictChoice.self, "link.onConflict")
        mergePolicy = try buffer.readEnum(MergePolicy.self, "link.mergePolicy")
        operationID = try buffer.readOperationID()
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(accessToken)
        credential.encode(into: &buffer)
        buffer.writeInteger(onConflict.rawValue)
        buffer.writeInteger(mergePolicy.rawValue)
        buffer.writeLengthPrefixedString(operationID)
    }
}
