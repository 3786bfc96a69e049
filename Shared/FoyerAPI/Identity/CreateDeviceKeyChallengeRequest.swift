public import FoyerWire
public import NIOCore

/// `createDeviceKeyChallenge` request (identity), and the gateway's `deviceKeyChallenge` request:
///
/// ```
/// u8 purpose   DeviceKeyPurpose: 1 signIn, 2 register
/// ```
public struct CreateDeviceKeyChallengeRequest: WireMessage, Hashable {
    public var purpose: DeviceKeyPurpose

    public init(purpose: DeviceKeyPurpose) {
        self.purpose = purpose
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        purpose = try buffer.readEnum(DeviceKeyPurpose.self, "deviceKeyChallenge.purpose")
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeInteger(purpose.rawValue)
    }
}
