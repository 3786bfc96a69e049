public import FoyerWire
public import NIOCore

/// `changePassword` request.
///
/// ```
/// string uid                                        <= 64 bytes: the member, as authenticated by the caller
/// string sessionID                                  <= 64 bytes: the session the caller's access token names
/// bool   hasCurrentPassword, string currentPassword <= 1024 bytes; absent: the session must have signed in
///                                                   recently (`recentSignInWindow`)
/// string newPassword                                <= 1024 bytes
/// string source                                     <= 64 bytes: the client's address as the gateway saw it
/// ```
public struct ChangePasswordRequest: WireMessage, Hashable {
    public var uid: String
    public var sessionID: String
    public var currentPassword: String?
    public var newPassword: String
    public var source: String

    public init(uid: String, sessionID: String, currentPassword: String?, newPassword: String, source: String = "") {
        self.uid = uid
        self.sessionID = sessionID
        self.currentPassword = currentPassword
        self.newPassword = newPassword
        self.source = source
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("changePassword.uid", maxBytes: IdentityLimits.uidByteCountMax)
        sessionID = try buffer.readLengthPrefixedString(
            "changePassword.sessionID",
            maxBytes: IdentityLimits.sessionIDByteCountMax
        )
        currentPassword = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readPassword("changePassword.currentPassword")
        }
        newPassword = try buffer.readPassword("changePassword.newPassword")
        source = try buffer.readLengthPrefixedString(
            "changePassword.source",
            maxBytes: IdentityLimits.sourceByteCountMax
        )
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(uid)
        buffer.writeLengthPrefixedString(sessionID)
        buffer.writeOptional(currentPassword) { $0.writeLengthPrefixedString($1) }
        buffer.writeLengthPrefixedString(newPassword)
        buffer.writeLengthPrefixedString(source)
    }
}
