public import FoyerWire
public import NIOCore

/// A request naming one user: `revokeAllSessions`, `getUser`, `recordActivity`.
///
/// ```
/// string uid   <= 64 bytes
/// ```
public struct IdentityUserRequest: WireMessage, Hashable {
    public var uid: String

    public init(uid: String) {
        self.uid = uid
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("user.uid", maxBytes: IdentityLimits.uidByteCountMax)
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(uid)
    }
}
