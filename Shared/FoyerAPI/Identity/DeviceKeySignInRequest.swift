public import FoyerWire
public import NIOCore

/// `signInWithDeviceKey` request: the signature of a `sign-in` challenge by a registered device key.
///
/// ```
/// bytes keyID       exactly 32 bytes: the key's id (`DeviceKeyRegistered`)
/// bytes challenge   exactly 32 bytes: a challenge of purpose `signIn`
/// bytes signature   exactly 64 bytes: raw r || s over `DeviceKey.signedMessage(.signIn, issuer, challenge)`
/// ```
public struct DeviceKeySignInRequest: WireMessage, Hashable {
    public var keyID: [UInt8]
    public var challenge: [UInt8]
    public var signature: [UInt8]

    public init(keyID: [UInt8], challenge: [UInt8], signature: [UInt8]) {
        self.keyID = keyID
        self.challenge = challenge
        self.signature = signature
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        keyID = try buffer.readDeviceKeyField("deviceKey.keyID", byteCount: DeviceKey.keyIDByteCount)
        challenge = try buffer.readDeviceKeyField("deviceKey.challenge", byteCount: DeviceKey.challengeByteCount)
        signature = try buffer.readDeviceKeyField("deviceKey.signature", byteCount: DeviceKey.signatureByteCount)
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedBytes(keyID)
        buffer.writeLengthPrefixedBytes(challenge)
        buffer.writeLengthPrefixedBytes(signature)
    }
}
