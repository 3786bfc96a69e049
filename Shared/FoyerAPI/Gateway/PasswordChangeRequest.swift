public import FoyerWire
public import NIOCore

/// `changePassword`:
/// ```
/// string           accessToken       <= 4096 bytes: a member's
/// optional string  currentPassword   <= 1024 bytes; absent: the session must have signed in recently
/// string           newPassword       <= 1024 bytes
/// ```
public struct PasswordChangeRequest: WireMessage, Hashable {
    public var accessToken: String
    public var currentPassword: String?
    public var newPassword: String

    public init(accessToken: String, currentPassword: String?, newPassword: String) {
        self.accessToken = accessToken
        self.currentPassword = currentPassword
        self.newPassword = newPassword
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        accessToken = try buffer.readAccessToken()
        currentPassword = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readPassword("changePassword.currentPassword")
        }
        newPassword = try buffer.readPassword("changePassword.newPassword")
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(accessToken)
        buffer.writeOptional(currentPassword) { $0.writeLengthPrefixedString($1) }
        buffer.writeLengthPrefixedString(newPassword)
    }
}
