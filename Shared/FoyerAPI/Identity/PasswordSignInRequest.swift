public import FoyerWire
public import NIOCore

/// `signInWithPassword` request.
///
/// ```
/// string email      <= 320 bytes
/// string password   <= 1024 bytes
/// string source     <= 64 bytes: the client's address as the gateway saw it; empty for an internal caller
/// ```
public struct PasswordSignInRequest: WireMessage, Hashable {
    public var email: String
    public var password: String
    /// The client's IP address (text), which the per-source limits count against; empty when there is no client.
    public var source: String

    public init(email: String, password: String, source: String = "") {
        self.email = email
        self.password = password
        self.source = source
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        email = try buffer.readLengthPrefixedString("signIn.email", maxBytes: IdentityLimits.emailByteCountMax)
        password = try buffer.readLengthPrefixedString(
            "signIn.password",
            maxBytes: IdentityLimits.passwordByteCountMax
        )
        source = try buffer.readLengthPrefixedString("signIn.source", maxBytes: IdentityLimits.sourceByteCountMax)
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(email)
        buffer.writeLengthPrefixedString(password)
        buffer.writeLengthPrefixedString(source)
    }
}
