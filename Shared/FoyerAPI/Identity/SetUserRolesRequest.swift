public import FoyerWire
public import NIOCore

/// `setUserRoles` request: the app-defined roles identity writes into the user's access tokens from now on (the
/// `roles` claim), replacing the ones it had. An empty list removes every role.
///
/// ```
/// string uid     <= 64 bytes
/// varint count   0-16
/// string role    1-64 bytes of a-z 0-9 _ . - : (each)
/// ```
public struct SetUserRolesRequest: WireMessage, Hashable {
    public var uid: String
    public var roles: [String]

    public init(uid: String, roles: [String]) {
        self.uid = uid
        self.roles = roles
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("setUserRoles.uid", maxBytes: IdentityLimits.uidByteCountMax)
        let count = try buffer.readCount("setUserRoles.roles", maxCount: IdentityLimits.rolesCountMax)
        var roles: [String] = []
        roles.reserveCapacity(count)
        for _ in 0..<count {
            roles.append(
                try buffer.readLengthPrefixedString("setUserRoles.role", maxBytes: IdentityLimits.grantNameByteCountMax)
            )
        }
        self.roles = roles
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(uid)
        buffer.writeVarint(UInt64(roles.count))
        for role in roles { buffer.writeLengthPrefixedString(role) }
    }
}
