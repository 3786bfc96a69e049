public import FoyerWire
public import NIOCore

/// `startEmailChange` request.
///
/// ```
/// string uid                                        <= 64 bytes: the member, as authenticated by the caller
/// string sessionID                                  <= 64 bytes: the session the caller's access token names
/// bool   hasCurrentPassword, string currentPassword <= 1024 bytes; absent: the session must have signed in
///                                                   recently (`recentSignInWindow`)
/// string newEmail                                   <= 320 bytes
/// bool   hasVerifierChallenge, bytes challenge      exactly 32 bytes: SHA-256 of a verifier the client keeps
/// string source                                     <= 64 bytes: the client's address as the gateway saw it
/// ```
public struct StartEmailChangeRequest: WireMessage, Hashable {
    public var uid: String
    public var sessionID: String
    public var currentPassword: String?
    public var newEmail: String
    public var verifierChallenge: [UInt8]?
    public var source: String

    public init(
        uid: String,
        sessionID: String,
        currentPassword: String?,
        newEmail: String,
        verifierChallenge: [UInt8]? = nil,
        source: String = ""
    ) {
        self.uid = uid
        self.sessionID = sessionID
        self.currentPassword = currentPassword
        self.newEmail = newEmail
        self.verifierChallenge = verifierChallenge
        self.source = source
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("emailChange.uid", maxBytes: IdentityLimits.uidByteCountMax)
        sessionID = try buffer.readLengthPrefixedString(
            "emailChange.sessionID",
            maxBytes: IdentityLimits.sessionIDByteCountMax
        )
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
        source = try buffer.readLengthPrefixedString("emailChange.source", maxBytes: IdentityLimits.sourceByteCountMax)
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(uid)
        buffer.writeLengthPrefixedString(sessionID)
        buffer.writeOptional(currentPassword) { $0.writeLengthPrefixedString($1) }
        buffer.writeLengthPrefixedString(newEmail)
        buffer.writeOptional(verifierChallenge) { $0.writeLengthPrefixedBytes($1) }
        buffer.writeLengthPrefixedString(source)
    }
}
