public import FoyerWire
public import NIOCore

/// `linkPassword` request: a user (usually a guest) signs up with an email and password.
///
/// ```
/// string uid        <= 64 bytes: the user, as authenticated by the caller
/// string email      <= 320 bytes
/// string password   <= 1024 bytes (the policy's own limit is lower and checked before hashing)
/// string source     <= 64 bytes: the client's address as the gateway saw it; empty for an internal caller
/// ```
public struct LinkPasswordRequest: WireMessage, Hashable {
    public var uid: String
    public var email: String
    public var password: String
    /// The client's IP address (text), which the per-source limits count against; empty when there is no client.
    public var source: String

    public init(uid: String, email: String, password: String, source: String = "") {
        self.uid = uid
        self.email = email
        self.password = password
        self.source = source
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
        source = try buffer.readLengthPrefixedString(
            "linkPassword.source",
            maxBytes: IdentityLimits.sourceByteCountMax
        )
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(uid)
        buffer.writeLengthPrefixedString(email)
        buffer.writeLengthPrefixedString(password)
        buffer.writeLengthPrefixedString(source)
    }
}
