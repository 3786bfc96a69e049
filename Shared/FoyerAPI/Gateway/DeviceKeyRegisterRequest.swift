public import FoyerWire
public import NIOCore

/// `registerDeviceKey`: the caller (a guest) registers a device key, proven by its signature of a `register`
/// challenge (`deviceKeyChallenge`).
///
/// ```
/// string accessToken   <= 4096 bytes: a guest's
/// bytes  publicKey     33, 64 or 65 bytes: the P-256 point, compressed SEC1, raw x || y, or uncompressed SEC1
/// bytes  challenge     exactly 32 bytes: from `deviceKeyChallenge` with purpose 2 (register)
/// bytes  signature     exactly 64 bytes: raw r || s over `DeviceKey.signedMessage(.register, issuer, challenge)`
/// ```
public struct DeviceKeyRegisterRequest: WireMessage, Hashable {
    public var accessToken: String
    public var publicKey: [UInt8]
    public var challenge: [UInt8]
    public var signature: [UInt8]

    public init(accessToken: String, publicKey: [UInt8], challenge: [UInt8], signature: [UInt8]) {
        self.accessToken = accessToken
        self.publicKey = publicKey
        self.challenge = challenge
        self.signature = signature
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        accessToken = try buffer.readAccessToken()
        publicKey = try buffer.readDevicePublicKey("deviceKey.publicKey")
        challenge = try buffer.readDeviceKeyField("deviceKey.challenge", byteCount: DeviceKey.challengeByteCount)
        signature = try buffer.readDeviceKeyField("deviceKey.signature", byteCount: DeviceKey.signatureByteCount)
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(accessToken)
        buffer.writeLengthPrefixedBytes(publicKey)
        buffer.writeLengthPrefixedBytes(challenge)
        buffer.writeLengthPrefixedBytes(signature)
    }
}
