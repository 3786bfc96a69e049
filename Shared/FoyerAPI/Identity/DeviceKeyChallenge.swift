public import FoyerWire
public import NIOCore

/// A fresh single-use challenge for a device key (the answer of identity's `createDeviceKeyChallenge` and the
/// gateway's `deviceKeyChallenge`):
///
/// ```
/// bytes  challenge               exactly 32 bytes from the CSPRNG
/// string issuer                  <= 2048 bytes: the deployment's issuer, signed with the challenge
///                                (`DeviceKey.signedMessage`)
/// u64    expiresAtMilliseconds   since the Unix epoch: the challenge is refused afterwards (5 minutes)
/// ```
public struct DeviceKeyChallenge: WireMessage, Hashable {
    public var challenge: [UInt8]
    public var issuer: String
    public var expiresAtMilliseconds: UInt64

    public init(challenge: [UInt8], issuer: String, expiresAtMilliseconds: UInt64) {
        self.challenge = challenge
        self.issuer = issuer
        self.expiresAtMilliseconds = expiresAtMilliseconds
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        challenge = try buffer.readDeviceKeyField("deviceKey.challenge", byteCount: DeviceKey.challengeByteCount)
        issuer = try buffer.readLengthPrefixedString("deviceKey.issuer", maxBytes: DeviceKey.issuerByteCountMax)
        expiresAtMilliseconds = try buffer.readWire(UInt64.self)
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedBytes(challenge)
        buffer.writeLengthPrefixedString(issuer)
        buffer.writeInteger(expiresAtMilliseconds)
    }
}

extension ByteBuffer {
    /// Length-prefixed bytes that must be exactly `byteCount` long (a challenge, a key id, a signature).
    public mutating func readDeviceKeyField(_ field: String, byteCount: Int) throws(WireError) -> [UInt8] {
        let bytes = try readLengthPrefixedBytes(field, maxBytes: byteCount)
        guard bytes.count == byteCount else { throw .invalidValue(field) }
        return bytes
    }

    /// A device's public key: 33, 64 or 65 bytes (`DeviceKey.publicKeyByteCounts`); whether it is a point on the
    /// curve is identity's check.
    public mutating func readDevicePublicKey(_ field: String) throws(WireError) -> [UInt8] {
        let bytes = try readLengthPrefixedBytes(field, maxBytes: DeviceKey.publicKeyByteCountMax)
        guard DeviceKey.publicKeyByteCounts.contains(bytes.count) else { throw .invalidValue(field) }
        return bytes
    }
}
