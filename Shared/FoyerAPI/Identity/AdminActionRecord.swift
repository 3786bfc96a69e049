public import FoyerWire
public import NIOCore

/// An entry of the audit log (an element of ``AdminActions``).
///
/// ```
/// u64    id
/// u64    atMilliseconds                when the action began
/// string keyID                         <= 64 bytes
/// string keyName                       <= 64 bytes: the key's name when the entry was read (empty if the key is gone)
/// string action                        <= 64 bytes
/// bool   hasTarget, string target      <= 128 bytes
/// bool   hasOutcome, string outcome    <= 64 bytes: absent while the action runs, or when it never ended
/// ```
public struct AdminActionRecord: WireMessage, Hashable {
    public var id: UInt64
    public var atMilliseconds: UInt64
    public var keyID: String
    public var keyName: String
    public var action: String
    public var target: String?
    public var outcome: String?

    public init(
        id: UInt64,
        atMilliseconds: UInt64,
        keyID: String,
        keyName: String,
        action: String,
        target: String? = nil,
        outcome: String? = nil
    ) {
        self.id = id
        self.atMilliseconds = atMilliseconds
        self.keyID = keyID
        self.keyName = keyName
        self.action = action
        self.target = target
        self.outcome = outcome
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        id = try buffer.readWire()
        atMilliseconds = try buffer.readWire()
        keyID = try buffer.readLengthPrefixedString(
            "adminAction.keyID",
            maxBytes: IdentityLimits.adminKeyIDByteCountMax
        )
        keyName = try buffer.readLengthPrefixedString(
            "adminAction.keyName",
            maxBytes: IdentityLimits.adminKeyNameByteCountMax
        )
        action = try buffer.readLengthPrefixedString(
            "adminAction.action",
            maxBytes: IdentityLimits.adminActionByteCountMax
        )
        target = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readLengthPrefixedString("adminAction.target", maxBytes: IdentityLimits.adminTargetByteCountMax)
        }
        outcome = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readLengthPrefixedString(
                "adminAction.outcome",
                maxBytes: IdentityLimits.adminOutcomeByteCountMax
            )
        }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeInteger(id)
        buffer.writeInteger(atMilliseconds)
        buffer.writeLengthPrefixedString(keyID)
        buffer.writeLengthPrefixedString(keyName)
        buffer.writeLengthPrefixedString(action)
        buffer.writeOptional(target) { $0.writeLengthPrefixedString($1) }
        buffer.writeOptional(outcome) { $0.writeLengthPrefixedString($1) }
    }
}
