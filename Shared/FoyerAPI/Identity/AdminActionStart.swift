public import FoyerWire
public import NIOCore

/// `beginAdminAction` request: an entry of the audit log, written before the action runs. It never holds an email, a
/// key or a token.
///
/// ```
/// string keyID                     <= 64 bytes: the admin key that acts (or "cluster-secret")
/// string action                    1–64 bytes, e.g. "user.delete"
/// bool   hasTarget, string target  <= 128 bytes: a uid or a key id, never an email
/// ```
public struct AdminActionStart: WireMessage, Hashable {
    public var keyID: String
    public var action: String
    public var target: String?

    public init(keyID: String, action: String, target: String? = nil) {
        self.keyID = keyID
        self.action = action
        self.target = target
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        keyID = try buffer.readLengthPrefixedString(
            "adminAction.keyID",
            maxBytes: IdentityLimits.adminKeyIDByteCountMax
        )
        action = try buffer.readLengthPrefixedString(
            "adminAction.action",
            maxBytes: IdentityLimits.adminActionByteCountMax
        )
        guard !action.isEmpty else { throw .invalidValue("adminAction.action") }
        target = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readLengthPrefixedString("adminAction.target", maxBytes: IdentityLimits.adminTargetByteCountMax)
        }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(keyID)
        buffer.writeLengthPrefixedString(action)
        buffer.writeOptional(target) { $0.writeLengthPrefixedString($1) }
    }
}
