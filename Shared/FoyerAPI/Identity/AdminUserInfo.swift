public import FoyerWire
public import NIOCore

/// `findUser` response: what identity knows about a user (as `getUser` answers it) and how many sessions it has
/// that are neither revoked nor past their absolute expiry, and the app-defined roles its access tokens carry.
///
/// ```
/// UserInfo user           see UserInfo
/// u64      liveSessions
/// varint   count          0-16
/// string   role           1-64 bytes (each), sorted
/// ```
public struct AdminUserInfo: WireMessage, Hashable {
    public var user: UserInfo
    public var liveSessions: UInt64
    public var roles: [String]

    public init(user: UserInfo, liveSessions: UInt64, roles: [String] = []) {
        self.user = user
        self.liveSessions = liveSessions
        self.roles = roles
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        user = try UserInfo(from: &buffer)
        liveSessions = try buffer.readWire()
        let count = try buffer.readCount("adminUser.roles", maxCount: IdentityLimits.rolesCountMax)
        var roles: [String] = []
        roles.reserveCapacity(count)
        for _ in 0..<count {
            roles.append(
                try buffer.readLengthPrefixedString("adminUser.role", maxBytes: IdentityLimits.grantNameByteCountMax)
            )
        }
        self.roles = roles
    }

    public func encode(into buffer: inout ByteBuffer) {
        user.encode(into: &buffer)
        buffer.writeInteger(liveSessions)
        buffer.writeVarint(UInt64(roles.count))
        for role in roles { buffer.writeLengthPrefixedString(role) }
    }
}
