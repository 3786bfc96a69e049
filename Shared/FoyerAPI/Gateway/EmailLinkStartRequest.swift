public import FoyerWire
public import NIOCore

/// `startEmailLink`:
/// ```
/// u8              purpose             1 sign in, 2 link (then the access token is required)
/// string          email               <= 320 bytes
/// optional string accessToken         <= 4096 bytes: the user to link to
/// bytes           verifierChallenge   exactly 32 bytes: SHA-256 of a secret the client keeps for `link`/`signIn`
/// ```
public struct EmailLinkStartRequest: WireMessage, Hashable {
    public var purpose: EmailLinkPurpose
    public var email: String
    public var accessToken: String?
    public var verifierChallenge: [UInt8]

    public init(purpose: EmailLinkPurpose, email: String, accessToken: String?, verifierChallenge: [UInt8]) {
        self.purpose = purpose
        self.email = email
        self.accessToken = accessToken
        self.verifierChallenge = verifierChallenge
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        purpose = try buffer.readEnum(EmailLinkPurpose.self, "emailLink.purpose")
        email = try buffer.readLengthPrefixedString("emailLink.email", maxBytes: IdentityLimits.emailByteCountMax)
        accessToken = try buffer.readOptional { (buffer) throws(WireError) in try buffer.readAccessToken() }
        verifierChallenge = try buffer.readLengthPrefixedBytes(
            "emailLink.verifierChallenge",
            maxBytes: IdentityLimits.verifierChallengeByteCount
        )
        guard verifierChallenge.count == IdentityLimits.verifierChallengeByteCount else {
            throw .invalidValue("emailLink.verifierChallenge")
        }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeInteger(purpose.rawValue)
        buffer.writeLengthPrefixedString(email)
        buffer.writeOptional(accessToken) { $0.writeLengthPrefixedString($1) }
        buffer.writeLengthPrefixedBytes(verifierChallenge)
    }
}
