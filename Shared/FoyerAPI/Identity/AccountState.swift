public import FoyerWire
public import NIOCore

/// Where a user is in the state machine: the answer of `beginMerge` and `beginDelete`, and an element of
/// ``StuckAccounts``.
///
/// ```
/// string uid                                <= 64 bytes
/// u8     kind                               AccountStateKind: 0 active, 1 merging, 2 deleting
/// bool   hasMergeInto, string mergeInto     <= 64 bytes: the account a merging guest goes into
/// bool   hasOperationID, string operationID <= 128 bytes: the operation of a merge or deletion
/// bool   hasSince, u64 sinceMilliseconds    when the merge or deletion began
/// bool   hasPolicy, u8 mergePolicy          MergePolicy the client chose for a merge
/// bool   hasReason, u8 deletionReason       DeletionReason of a deletion
/// ```
public struct AccountState: WireMessage, Hashable {
    public var uid: String
    public var kind: AccountStateKind
    public var mergeInto: String?
    public var operationID: String?
    public var sinceMilliseconds: UInt64?
    public var mergePolicy: MergePolicy?
    public var deletionReason: DeletionReason?

    public init(
        uid: String,
        kind: AccountStateKind,
        mergeInto: String? = nil,
        operationID: String? = nil,
        sinceMilliseconds: UInt64? = nil,
        mergePolicy: MergePolicy? = nil,
        deletionReason: DeletionReason? = nil
    ) {
        self.uid = uid
        self.kind = kind
        self.mergeInto = mergeInto
        self.operationID = operationID
        self.sinceMilliseconds = sinceMilliseconds
        self.mergePolicy = mergePolicy
        self.deletionReason = deletionReason
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("state.uid", maxBytes: IdentityLimits.uidByteCountMax)
        kind = try buffer.readEnum(AccountStateKind.self, "state.kind")
        mergeInto = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readLengthPrefixedString("state.mergeInto", maxBytes: IdentityLimits.uidByteCountMax)
        }
        operationID = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readLengthPrefixedString("state.operationID", maxBytes: IdentityLimits.operationIDByteCountMax)
        }
        sinceMilliseconds = try buffer.readOptional { (buffer) throws(WireError) in try buffer.readWire(UInt64.self) }
        mergePolicy = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readEnum(MergePolicy.self, "state.mergePolicy")
        }
        deletionReason = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readEnum(DeletionReason.self, "state.deletionReason")
        }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(uid)
        buffer.writeInteger(kind.rawValue)
        buffer.writeOptional(mergeInto) { $0.writeLengthPrefixedString($1) }
        buffer.writeOptional(operationID) { $0.writeLengthPrefixedString($1) }
        buffer.writeOptional(sinceMilliseconds) { $0.writeInteger($1) }
        buffer.writeOptional(mergePolicy) { $0.writeInteger($1.rawValue) }
        buffer.writeOptional(deletionReason) { $0.writeInteger($1.rawValue) }
    }
}
