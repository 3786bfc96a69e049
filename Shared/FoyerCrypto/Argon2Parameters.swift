/// Cost parameters for ``Argon2id`` (RFC 9106): memory in KiB, passes over it, and lanes.
public struct Argon2Parameters: Sendable, Equatable {
    /// Accepted memory, in KiB: at least 8 per lane (RFC 9106 §3.1), at most 4 GiB.
    public static let memoryKiBRange: ClosedRange<UInt32> = 8...(4 << 20)
    /// Accepted number of passes.
    public static let iterationsRange: ClosedRange<UInt32> = 1...64
    /// Accepted number of lanes. libargon2 runs each lane beyond the first on a thread of its own, outside any
    /// concurrency bound of the caller: keep 1 in a server that bounds its hashing.
    public static let parallelismRange: ClosedRange<UInt32> = 1...16

    /// Memory cost m, in KiB.
    public var memoryKiB: UInt32
    /// Time cost t: passes over the memory.
    public var iterations: UInt32
    /// Lanes p.
    public var parallelism: UInt32

    public init(memoryKiB: UInt32, iterations: UInt32, parallelism: UInt32) {
        self.memoryKiB = memoryKiB
        self.iterations = iterations
        self.parallelism = parallelism
    }

    /// m = 19 MiB, t = 2, p = 1: OWASP's first recommendation for password storage (its Password Storage Cheat
    /// Sheet), as strong against guessing as its scrypt N = 2^17, r = 8, p = 1 at a sixth of the memory.
    public static let interactive = Argon2Parameters(memoryKiB: 19 * 1024, iterations: 2, parallelism: 1)

    /// The memory the derivation allocates, in bytes.
    public var memoryBytes: Int { Int(memoryKiB) * 1024 }

    /// Checks the parameters against the documented bounds.
    ///
    /// - Throws: ``FoyerCryptoError/invalidParameters`` for values out of range, including memory under 8 KiB per
    ///   lane.
    public func validate() throws {
        guard Self.memoryKiBRange.contains(memoryKiB) else {
            throw FoyerCryptoError.invalidParameters("argon2 memory \(memoryKiB) KiB is outside \(Self.memoryKiBRange)")
        }
        guard Self.iterationsRange.contains(iterations) else {
            throw FoyerCryptoError.invalidParameters(
                "argon2 iterations \(iterations) are outside \(Self.iterationsRange)"
            )
        }
        guard Self.parallelismRange.contains(parallelism) else {
            throw FoyerCryptoError.invalidParameters(
                "argon2 parallelism \(parallelism) is outside \(Self.parallelismRange)"
            )
        }
        guard memoryKiB >= 8 * parallelism else {
            throw FoyerCryptoError.invalidParameters("argon2 needs at least 8 KiB of memory per lane")
        }
    }
}
