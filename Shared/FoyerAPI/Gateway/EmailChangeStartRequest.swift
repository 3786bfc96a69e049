public import FoyerWire
public import NIOCore

/// `startEmailChange`:
/// ```
/// string           accessToken         <= 4096 bytes: a member's
/// optional string  currentPassword     <= 1024 bytes; absent: the session must have signed in recently
/// string           newEmail            <= 320 bytes
/// optional bytes   verifierChallenge   exactly 32 bytes: SHA-256 of a secret the client keeps; when given,
///                                      completing the change needs that secret
/// ```
public struct EmailChangeStartRequest: WireMessage, Hashable {
    public var accessToken: String
    public var currentPassword: String?
    public var newEmail: String
    public var verifierChallenge: [UInt8]?

    public init(accessToken: String, currentPassword: String?, newEmail: String, verifierChallenge: [UInt8]?) {
        self.accessToken = accessToken
        self.currentPassword = currentPassword
        self.newEmail = newEmail
        self.verifierChallenge = verifierChallenge
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        accessToken = try buffer.readAccessToken()
        currentPassword = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readPassword("emailChange.currentPassword")
        }
        newEmail = try buffer.readLengthPrefixedString(
            "emailChange.newEmail",
            maxBytes: IdentityLimits.emailByteCountMax
        )
        verifierChallenge = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readVerifierChallenge("emailChange.verifierChallenge")
        }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(accessToken)
        buffer.writeOptional(currentPassword) { $0.writeLengthPrefixedString($1) }
        buffer.writeLengthPrefixedString(newEmail)
        buffer.writeOptional(verifierChallenge) { $0.writeLengthPrefixedBytes($1) }
    }
}
