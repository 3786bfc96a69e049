public import FoyerWire
public import NIOCore

/// `signInWithPassword` request.
///
/// ```
/// string email      <= 320 bytes
/// string password   <= 1024 bytes
/// ```
public struct PasswordSignInRequest: WireMessage, Hashable {
    public var email: String
    public var password: String

    public init(email: String, password: String) {
        self.email = email
        self.password = password
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        email = try buffer.readLengthPrefixedString("signIn.email", maxBytes: IdentityLimits.emailByteCountMax)
        password = try buffer.readLengthPrefixedString(
            "signIn.password",
            maxBytes: IdentityLimits.passwordByteCountMax
        )
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(email)
        buffer.writeLengthPrefixedString(password)
    }
}
