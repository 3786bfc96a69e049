public import FoyerWire
public import NIOCore

/// `startEmailLink` request.
///
/// ```
/// u8     purpose              EmailLinkPurpose: 1 sign in, 2 link
/// string email                <= 320 bytes
/// bool   hasUID, string uid   <= 64 bytes: the user to link to; required for `link`, absent for `signIn`
/// bytes  verifierChallenge    exactly 32 bytes: SHA-256 of the verifier the client keeps
/// string source               <= 64 bytes: the client's address as the gateway saw it; empty for an internal caller
/// ```
public struct StartEmailLinkRequest: WireMessage, Hashable {
    public var purpose: EmailLinkPurpose
    public var email: String
    public var uid: String?
    public var verifierChallenge: [UInt8]
    /// The client's IP address (text), which the per-source limits count against; empty when there is no client.
    public var source: String

    public init(
        purpose: EmailLinkPurpose,
        email: String,
        uid: String? = nil,
        verifierChallenge: [UInt8],
        source: String = ""
    ) {
        self.purpose = purpose
        self.email = email
        self.uid = uid
        self.verifierChallenge = verifierChallenge
        self.source = source
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        purpose = try buffer.readEnum(EmailLinkPurpose.self, "emailLink.purpose")
        email = try buffer.readLengthPrefixedString("emailLink.email", maxBytes: IdentityLimits.emailByteCountMax)
        uid = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readLengthPrefixedString("emailLink.uid", maxBytes: IdentityLimits.uidByteCountMax)
        }
        verifierChallenge = try buffer.readLengthPrefixedBytes(
            "emailLink.verifierChallenge",
            maxBytes: IdentityLimits.verifierChallengeByteCount
        )
        guard verifierChallenge.count == IdentityLimits.verifierChallengeByteCount else {
            throw .invalidValue("emailLink.verifierChallenge")
        }
        guard (purpose == .link) == (uid != nil) else { throw .invalidValue("emailLink.uid") }
        source = try buffer.readLengthPrefixedString("emailLink.source", maxBytes: IdentityLimits.sourceByteCountMax)
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeInteger(purpose.rawValue)
        buffer.writeLengthPrefixedString(email)
        buffer.writeOptional(uid) { $0.writeLengthPrefixedString($1) }
        buffer.writeLengthPrefixedBytes(verifierChallenge)
        buffer.writeLengthPrefixedString(source)
    }
}
