public import FoyerWire
public import NIOCore

/// One Apple or Google identity linked to a user (an element of ``UserInfo``).
///
/// ```
/// u8     provider       IdentityProvider
/// string subject        <= 255 bytes: the provider's `sub`
/// bool   hasEmail, string email   <= 320 bytes: the email the provider reported (informational only)
/// bool   emailTrusted   whether the provider vouches for that email (Google: gmail.com, or verified with `hd`)
/// ```
public struct LinkedIdentity: WireMessage, Hashable {
    public var provider: IdentityProvider
    public var subject: String
    public var email: String?
    public var emailTrusted: Bool

    public init(provider: IdentityProvider, subject: String, email: String?, emailTrusted: Bool) {
        self.provider = provider
        self.subject = subject
        self.email = email
        self.emailTrusted = emailTrusted
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        provider = try buffer.readEnum(IdentityProvider.self, "linked.provider")
        subject = try buffer.readLengthPrefixedString("linked.subject", maxBytes: IdentityLimits.subjectByteCountMax)
        email = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readLengthPrefixedString("linked.email", maxBytes: IdentityLimits.emailByteCountMax)
        }
        emailTrusted = try buffer.readBool()
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeInteger(provider.rawValue)
        buffer.writeLengthPrefixedString(subject)
        buffer.writeOptional(email) { $0.writeLengthPrefixedString($1) }
        buffer.writeBool(emailTrusted)
    }
}
