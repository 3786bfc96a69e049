public import FoyerWire
public import NIOCore

/// `signUpChallenge`'s answer: a proof-of-work challenge for one guest sign-in.
/// ```
/// bytes challenge              1-128 bytes, opaque: hash it as it is (docs/PROTOCOL.md, "Sign-up checks")
/// u8    difficulty             0-64: leading zero bits SHA-256(challenge || nonce) must have
/// u64   expiresAtMilliseconds  Unix time after which the gateway refuses it
/// ```
public struct SignUpChallenge: WireMessage, Hashable {
    public var challenge: [UInt8]
    public var difficulty: UInt8
    public var expiresAtMilliseconds: UInt64

    public static let difficultyMax: UInt8 = 64

    public init(challenge: [UInt8], difficulty: UInt8, expiresAtMilliseconds: UInt64) {
        self.challenge = challenge
        self.difficulty = difficulty
        self.expiresAtMilliseconds = expiresAtMilliseconds
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        challenge = try buffer.readLengthPrefixedBytes(
            "signUpChallenge.challenge",
            maxBytes: SignUpProof.challengeByteCountMax
        )
        guard !challenge.isEmpty else { throw .invalidValue("signUpChallenge.challenge") }
        difficulty = try buffer.readWire(UInt8.self)
        guard difficulty <= Self.difficultyMax else { throw .invalidValue("signUpChallenge.difficulty") }
        expiresAtMilliseconds = try buffer.readWire(UInt64.self)
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedBytes(challenge)
        buffer.writeInteger(difficulty)
        buffer.writeInteger(expiresAtMilliseconds)
    }
}
