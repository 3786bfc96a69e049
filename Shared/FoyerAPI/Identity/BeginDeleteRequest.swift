public import FoyerWire
public import NIOCore

/// `beginDelete` request.
///
/// ```
/// string uid                                           <= 64 bytes
/// string operationID                                   1–128 bytes
/// u8     reason                                        DeletionReason: 0 user-request, 1 ttl, 2 merge (kept with
///                                                      the state, for the `user.deleted` event and the record)
/// bool   hasIdleBefore, u64 idleBeforeMilliseconds     for the inactivity clean-up: delete only if the user is
///                                                      still an active guest whose last activity is older than
///                                                      this (otherwise `guest-still-active`), checked atomically
/// ```
public struct BeginDeleteRequest: WireMessage, Hashable {
    public var uid: String
    public var operationID: String
    public var reason: DeletionReason
    public var idleBeforeMilliseconds: UInt64?

    public init(
        uid: String,
        operationID: String,
        reason: DeletionReason = .userRequest,
        idleBeforeMilliseconds: UInt64? = nil
    ) {
        self.uid = uid
        self.operationID = operationID
        self.reason = reason
        self.idleBeforeMilliseconds = idleBeforeMilliseconds
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("delete.uid", maxBytes: IdentityLimits.uidByteCountMax)
        operationID = try buffer.readLengthPrefixedString(
            "delete.operationID",
            maxBytes: IdentityLimits.operationIDByteCountMax
        )
        guard !operationID.isEmpty else { throw .invalidValue("delete.operationID") }
        reason = try buffer.readEnum(DeletionReason.self, "delete.reason")
        idleBeforeMilliseconds = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readWire(UInt64.self)
        }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(uid)
        buffer.writeLengthPrefixedString(operationID)
        buffer.writeInteger(reason.rawValue)
        buffer.writeOptional(idleBeforeMilliseconds) { $0.writeInteger($1) }
    }
}
