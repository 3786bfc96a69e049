public import FoyerWire
public import NIOCore

/// The answer of every call that signs a user in: who, the session, and its two tokens.
///
/// ```
/// string uid                               <= 64 bytes
/// bool   isAnonymous
/// string sessionID                         <= 64 bytes
/// string accessToken                       <= 4096 bytes: a JWT (ES256, RS256 or EdDSA), 15 minutes by default
/// u64    accessTokenExpiresAtMilliseconds  since the Unix epoch
/// string refreshToken                      <= 128 bytes: 43 base64url characters (256 random bits)
/// u64    refreshTokenExpiresAtMilliseconds the earlier of the idle and the absolute expiry, at issue time
/// ```
public struct SessionTokens: WireMessage, Hashable {
    public var uid: String
    public var isAnonymous: Bool
    public var sessionID: String
    public var accessToken: String
    public var accessTokenExpiresAtMilliseconds: UInt64
    public var refreshToken: String
    public var refreshTokenExpiresAtMilliseconds: UInt64

    public init(
        uid: String,
        isAnonymous: Bool,
        sessionID: String,
        accessToken: String,
        accessTokenExpiresAtMilliseconds: UInt64,
        refreshToken: String,
        refreshTokenExpiresAtMilliseconds: UInt64
    ) {
        self.uid = uid
        self.isAnonymous = isAnonymous
        self.sessionID = sessionID
        self.accessToken = accessToken
        self.accessTokenExpiresAtMilliseconds = accessTokenExpiresAtMilliseconds
        self.refreshToken = refreshToken
        self.refreshTokenExpiresAtMilliseconds = refreshTokenExpiresAtMilliseconds
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("session.uid", maxBytes: IdentityLimits.uidByteCountMax)
        isAnonymous = try buffer.readBool()
        sessionID = try buffer.readLengthPrefixedString(
            "session.sessionID",
            maxBytes: IdentityLimits.sessionIDByteCountMax
        )
        accessToken = try buffer.readLengthPrefixedString(
            "session.accessToken",
            maxBytes: IdentityLimits.accessTokenByteCountMax
        )
        accessTokenExpiresAtMilliseconds = try buffer.readWire()
        refreshToken = try buffer.readLengthPrefixedString(
            "session.refreshToken",
            maxBytes: IdentityLimits.secretTokenByteCountMax
        )
        refreshTokenExpiresAtMilliseconds = try buffer.readWire()
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(uid)
        buffer.writeBool(isAnonymous)
        buffer.writeLengthPrefixedString(sessionID)
        buffer.writeLengthPrefixedString(accessToken)
        buffer.writeInteger(accessTokenExpiresAtMilliseconds)
        buffer.writeLengthPrefixedString(refreshToken)
        buffer.writeInteger(refreshTokenExpiresAtMilliseconds)
    }
}
