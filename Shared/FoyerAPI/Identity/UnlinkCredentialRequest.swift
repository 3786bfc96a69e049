public import FoyerWire
public import NIOCore

/// `unlinkCredential` request.
///
/// ```
/// string uid          <= 64 bytes: the member, as authenticated by the caller
/// string sessionID    <= 64 bytes: the session the caller's access token names (it must have signed in recently)
/// u8     credential   CredentialKind: 0 email, 1 apple, 2 google
/// ```
public struct UnlinkCredentialRequest: WireMessage, Hashable {
    public var uid: String
    public var sessionID: String
    public var credential: CredentialKind

    public init(uid: String, sessionID: String, credential: CredentialKind) {
        self.uid = uid
        self.sessionID = sessionID
        self.credential = credential
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("unlink.uid", maxBytes: IdentityLimits.uidByteCountMax)
        sessionID = try buffer.readLengthPrefixedString(
            "unlink.sessionID",
            maxBytes: IdentityLimits.sessionIDByteCountMax
        )
        credential = try buffer.readEnum(CredentialKind.self, "unlink.credential")
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(uid)
        buffer.writeLengthPrefixedString(sessionID)
        buffer.writeInteger(credential.rawValue)
    }
}
