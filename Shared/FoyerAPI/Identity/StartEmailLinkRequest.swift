public import FoyerWire
public import NIOCore

/// `startEmailLink` request.
///
/// ```
/// u8     purpose              EmailLinkPurpose: 1 sign in, 2 link
/// string email                <= 320 bytes
/// bool   hasUID, string uid   <= 64 bytes: the user to link to; required for `link`, absent for `signIn`
/// bytes  verifierChallenge    exactly 32 bytes: SHA-256 of the verifier the client keeps
/// ```
public struct StartEmailLinkRequest: WireMessage, Hashable {
    public var purpose: EmailLinkPurpose
    public var email: String
    public var uid: String?
    public var verifierChallenge: [UInt8]

    public init(purpose: EmailLinkPurpose, email: String, uid: String? = nil, verifierChallenge: [UInt8]) {
        self.purpose = purpose
        self.email = email
        self.uid = uid
        self.verifierChallenge = verifierChallenge
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
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeInteger(purpose.rawValue)
        buffer.writeLengthPrefixedString(email)
        buffer.writeOptional(uid) { $0.writeLengthPrefixedString($1) }
        buffer.writeLengthPrefixedBytes(verifierChallenge)
    }
}
