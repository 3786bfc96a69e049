public import FoyerWire
public import NIOCore

/// `verifyAccessToken` response: whom a valid access token is for.
///
/// ```
/// string uid                    <= 64 bytes (the `sub` claim)
/// bool   isAnonymous            the `is_anonymous` claim
/// string sessionID              <= 64 bytes (the `sid` claim)
/// u64    expiresAtMilliseconds  the `exp` claim, in milliseconds since the Unix epoch
/// ```
public struct VerifiedAccessToken: WireMessage, Hashable {
    public var uid: String
    public var isAnonymous: Bool
    public var sessionID: String
    public var expiresAtMilliseconds: UInt64

    public init(uid: String, isAnonymous: Bool, sessionID: String, expiresAtMilliseconds: UInt64) {
        self.uid = uid
        self.isAnonymous = isAnonymous
        self.sessionID = sessionID
        self.expiresAtMilliseconds = expiresAtMilliseconds
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("verified.uid", maxBytes: IdentityLimits.uidByteCountMax)
        isAnonymous = try buffer.readBool()
        sessionID = try buffer.readLengthPrefixedString(
            "verified.sessionID",
            maxBytes: IdentityLimits.sessionIDByteCountMax
        )
        expiresAtMilliseconds = try buffer.readWire()
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(uid)
        buffer.writeBool(isAnonymous)
        buffer.writeLengthPrefixedString(sessionID)
        buffer.writeInteger(expiresAtMilliseconds)
    }
}
