/// The rule of the proof-of-work sign-up check, shared by the gateway (which checks) and the clients (which solve):
/// a nonce is good for a challenge when SHA-256(challenge || nonce) starts with at least `difficulty` zero bits,
/// counted from the most significant bit of the digest's first byte (docs/PROTOCOL.md, "Sign-up checks").
public enum ProofOfWork {
    /// The zero bits at the start of `digest`: whole zero bytes count 8 each, then the leading zeros of the first
    /// byte that is not zero.
    public static func leadingZeroBits(_ digest: some Sequence<UInt8>) -> Int {
        var bits = 0
        for byte in digest {
            if byte == 0 {
                bits += 8
                continue
            }
            return bits + byte.leadingZeroBitCount
        }
        return bits
    }

    /// Whether `digest` has at least `difficulty` leading zero bits.
    public static func meets(_ digest: some Sequence<UInt8>, difficulty: Int) -> Bool {
        leadingZeroBits(digest) >= difficulty
    }

    /// The nonce a client tries at step `counter`: the counter as 8 bytes, big-endian. Any 1–64 bytes are accepted;
    /// this is the encoding Foyer's clients use.
    public static func nonce(_ counter: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: counter >> (56 - 8 * UInt64($0))) }
    }
}
