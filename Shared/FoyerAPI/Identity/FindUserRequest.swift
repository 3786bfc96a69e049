public import FoyerWire
public import NIOCore

/// `findUser` request: one user by uid or by email (an email is normalised as sign-in does before the lookup).
///
/// ```
/// u8     by      UserLookup: 0 uid, 1 email
/// string value   <= 320 bytes: the uid or the email address
/// ```
public struct FindUserRequest: WireMessage, Hashable {
    public var by: UserLookup
    public var value: String

    public init(by: UserLookup, value: String) {
        self.by = by
        self.value = value
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        by = try buffer.readEnum(UserLookup.self, "findUser.by")
        value = try buffer.readLengthPrefixedString("findUser.value", maxBytes: IdentityLimits.emailByteCountMax)
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeInteger(by.rawValue)
        buffer.writeLengthPrefixedString(value)
    }
}
