public import FoyerWire
public import NIOCore

/// A request naming one admin key: `revokeAdminKey`.
///
/// ```
/// string keyID   <= 64 bytes
/// ```
public struct AdminKeyRequest: WireMessage, Hashable {
    public var keyID: String

    public init(keyID: String) {
        self.keyID = keyID
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        keyID = try buffer.readLengthPrefixedString("adminKey.keyID", maxBytes: IdentityLimits.adminKeyIDByteCountMax)
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(keyID)
    }
}
