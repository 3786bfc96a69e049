public import FoyerWire
public import NIOCore

/// `createAdminKey` response: the new key's description and the key itself, which exists outside memory only in this
/// answer (identity keeps its SHA-256).
///
/// ```
/// AdminKeyInfo info   see AdminKeyInfo
/// string       key    <= 128 bytes: foyer_admin_<keyID>_<secret>, the secret 32 random bytes in base64url
/// ```
public struct AdminKeyCreated: WireMessage, Hashable {
    public var info: AdminKeyInfo
    public var key: String

    public init(info: AdminKeyInfo, key: String) {
        self.info = info
        self.key = key
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        info = try AdminKeyInfo(from: &buffer)
        key = try buffer.readLengthPrefixedString("adminKey.key", maxBytes: IdentityLimits.adminKeyByteCountMax)
    }

    public func encode(into buffer: inout ByteBuffer) {
        info.encode(into: &buffer)
        buffer.writeLengthPrefixedString(key)
    }
}
