public import FoyerWire
public import NIOCore

/// `verifyAdminKey` request.
///
/// ```
/// string key   <= 128 bytes: the whole key as presented (foyer_admin_<keyID>_<secret>)
/// ```
public struct VerifyAdminKeyRequest: WireMessage, Hashable {
    public var key: String

    public init(key: String) {
        self.key = key
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        key = try buffer.readLengthPrefixedString("adminKey.key", maxBytes: IdentityLimits.adminKeyByteCountMax)
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(key)
    }
}
