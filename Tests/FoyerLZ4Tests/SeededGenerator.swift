/// A deterministic random number generator (SplitMix64), so every run tests the same inputs.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// `count` bytes drawn from the first `alphabet` byte values: a small alphabet repeats often enough to
    /// give short and long matches, 256 gives bytes LZ4 cannot shrink.
    mutating func bytes(_ count: Int, alphabet: Int = 256) -> [UInt8] {
        (0..<count).map { _ in UInt8(Int.random(in: 0..<alphabet, using: &self)) }
    }
}
