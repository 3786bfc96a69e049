public import FoyerWire
public import NIOCore

/// `registerDeviceKey` request: a guest registers a device key, proving it holds the private key by signing a
/// `register` challenge.
///
/// ```
/// string uid         <= 64 bytes: the guest (the gateway's authenticated caller)
/// bytes  publicKey   33, 64 or 65 bytes: the P-256 point, compressed SEC1, raw x || y, or uncompressed SEC1
/// bytes  challenge   exactly 32 bytes: a challenge of purpose `register`
/// bytes  signature   exactly 64 bytes: raw r || s over `DeviceKey.signedMessage(.register, issuer, challenge)`
/// ```
public struct RegisterDeviceKeyRequest: WireMessage, Hashable {
    public var uid: String
    public var publicKey: [UInt8]
    public var challenge: [UInt8]
    public var signature: [UInt8]

    public init(uid: String, publicKey: [UInt8], challenge: [UInt8], signature: [UInt8]) {
        self.uid = uid
        self.publicKey = publicKey
        self.challenge = challenge
        self.signature = signature
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("deviceKey.uid", maxBytes: IdentityLimits.uidByteCountMax)
        publicKey = try buffer.readDevicePublicKey("deviceKey.publicKey")
        challenge = try buffer.readDeviceKeyField("deviceKey.challenge", byteCount: DeviceKey.challengeByteCount)
        signature = try buffer.readDeviceKeyField("deviceKey.signature", byteCount: DeviceKey.signatureByteCount)
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(uid)
        buffer.writeLengthPrefixedBytes(publicKey)
        buffer.writeLengthPrefixedBytes(challenge)
        buffer.writeLengthPrefixedBytes(signature)
    }
}
