public import FoyerWire
public import NIOCore

/// The answer of identity's `registerDeviceKey` and the gateway's `registerDeviceKey`:
///
/// ```
/// bytes keyID   exactly 32 bytes: SHA-256 of the key's uncompressed SEC1 point, what sign-in names the key by
/// ```
public struct DeviceKeyRegistered: WireMessage, Hashable {
    public var keyID: [UInt8]

    public init(keyID: [UInt8]) {
        self.keyID = keyID
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        keyID = try buffer.readDeviceKeyField("deviceKey.keyID", byteCount: DeviceKey.keyIDByteCount)
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedBytes(keyID)
    }
}
