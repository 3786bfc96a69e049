public import FoyerWire
public import NIOCore

/// `linkPassword` request: a user (usually a guest) signs up with an email and password.
///
/// ```
/// string uid        <= 64 bytes: the user, as authenticated by the caller
/// string email      <= 320 bytes
/// string password   <= 1024 bytes (the policy's own limit is lower and checked before hashing)
/// ```
public struct LinkPasswordRequest: WireMessage, Hashable {
    public var uid: String
    public var email: String
    public var password: String

    public init(uid: String, email: String, password: String) {
        self.uid = uid
        self.email = email
        self.password = password
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("linkPassword.uid", maxBytes: IdentityLimits.uidByteCountMax)
        email = try buffer.readLengthPrefixedString(
            "linkPassword.email",
            maxBytes: IdentityLimits.emailByteCountMax
        )
        password = try buffer.readLengthPrefixedString(
            "linkPassword.password",
            maxBytes: IdentityLimits.passwordByteCountMax
        )
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(uid)
        buffer.writeLengthPrefixedString(email)
        buffer.writeLengthPrefixedString(password)
    }
}
