public import FoyerWire
public import NIOCore

/// `findUser` response: what identity knows about a user (as `getUser` answers it) and how many sessions it has
/// that are neither revoked nor past their absolute expiry.
///
/// ```
/// UserInfo user           see UserInfo
/// u64      liveSessions
/// ```
public struct AdminUserInfo: WireMessage, Hashable {
    public var user: UserInfo
    public var liveSessions: UInt64

    public init(user: UserInfo, liveSessions: UInt64) {
        self.user = user
        self.liveSessions = liveSessions
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        user = try UserInfo(from: &buffer)
        liveSessions = try buffer.readWire()
    }

    public func encode(into buffer: inout ByteBuffer) {
        user.encode(into: &buffer)
        buffer.writeInteger(liveSessions)
    }
}
