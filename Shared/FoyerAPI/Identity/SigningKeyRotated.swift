public import FoyerWire
public import NIOCore

/// `rotateSigningKey` response.
///
/// ```
/// string keyID   <= 128 bytes: the `kid` of the new key (published now, signing after the activation delay)
/// ```
public struct SigningKeyRotated: WireMessage, Hashable {
    public var keyID: String

    public init(keyID: String) {
        self.keyID = keyID
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        keyID = try buffer.readLengthPrefixedString("rotated.keyID", maxBytes: IdentityLimits.keyIDByteCountMax)
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(keyID)
    }
}
