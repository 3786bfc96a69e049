public import FoyerWire
public import NIOCore

/// What a client shows for the deployment's sign-up check (`--sign-up-check`) with a guest sign-in
/// (`guestSignInWithCheck`).
///
/// ```
/// u8 kind   1 proofOfWork: bytes challenge (1-128, as `signUpChallenge` answered it), bytes nonce (1-64)
///           2 siteverify:  string token (1-4096), the token the captcha widget gave the client
/// ```
///
/// A new kind is an addition (docs/PROTOCOL.md §15): only newer clients send it, and a gateway that predates it
/// refuses it as an unknown kind (`invalid-argument`, `signUpProof.kind`).
public enum SignUpProof: WireMessage, Hashable {
    /// A nonce such that SHA-256(challenge || nonce) starts with the challenge's number of zero bits.
    case proofOfWork(challenge: [UInt8], nonce: [UInt8])
    /// A token for a siteverify-style verifier (Cloudflare Turnstile, hCaptcha, reCAPTCHA).
    case siteverify(token: String)

    public static let challengeByteCountMax = 128
    public static let nonceByteCountMax = 64
    public static let tokenByteCountMax = 4096

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        switch try buffer.readWire(UInt8.self) {
        case 1:
            let challenge = try buffer.readLengthPrefixedBytes(
                "signUpProof.challenge",
                maxBytes: Self.challengeByteCountMax
            )
            guard !challenge.isEmpty else { throw .invalidValue("signUpProof.challenge") }
            let nonce = try buffer.readLengthPrefixedBytes("signUpProof.nonce", maxBytes: Self.nonceByteCountMax)
            guard !nonce.isEmpty else { throw .invalidValue("signUpProof.nonce") }
            self = .proofOfWork(challenge: challenge, nonce: nonce)
        case 2:
            let token = try buffer.readLengthPrefixedString("signUpProof.token", maxBytes: Self.tokenByteCountMax)
            guard !token.isEmpty else { throw .invalidValue("signUpProof.token") }
            self = .siteverify(token: token)
        default:
            throw .invalidValue("signUpProof.kind")
        }
    }

    public func encode(into buffer: inout ByteBuffer) {
        switch self {
        case .proofOfWork(let challenge, let nonce):
            buffer.writeInteger(UInt8(1))
            buffer.writeLengthPrefixedBytes(challenge)
            buffer.writeLengthPrefixedBytes(nonce)
        case .siteverify(let token):
            buffer.writeInteger(UInt8(2))
            buffer.writeLengthPrefixedString(token)
        }
    }
}
