public import FoyerWire
public import NIOCore

/// `revokeSession` request.
///
/// ```
/// string uid         <= 64 bytes: the session's owner, as authenticated by the caller
/// string sessionID   <= 64 bytes
/// ```
public struct RevokeSessionRequest: WireMessage, Hashable {
    public var uid: String
    public var sessionID: String

    public init(uid: String, sessionID: String) {
        self.uid = uid
        self.sessionID = sessionID
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("revoke.uid", maxBytes: IdentityLimits.uidByteCountMax)
        sessionID = try buffer.readLengthPrefixedString(
            "revoke.sessionID",
            maxBytes: IdentityLimits.sessionIDByteCountMax
        )
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(uid)
        buffer.writeLengthPrefixedString(sessionID)
    }
}
