/// Cost parameters for ``Scrypt`` (RFC 7914), with the memory ceiling the derivation may use.
public struct ScryptParameters: Sendable, Equatable {
    /// Accepted range of ``logN`` (N = 2^logN). The upper end keeps N × r within a sane allocation.
    public static let logNRange: ClosedRange<UInt8> = 1...30
    /// Accepted range of the block size ``r``.
    public static let rRange: ClosedRange<UInt32> = 1...256
    /// Accepted range of the parallelization ``p``.
    public static let pRange: ClosedRange<UInt32> = 1...64

    /// Base-2 logarithm of the CPU/memory cost N.
    public var logN: UInt8
    /// Block size r.
    public var r: UInt32
    /// Parallelization p.
    public var p: UInt32
    /// The most memory the derivation may allocate; derivations needing more fail with
    /// ``FoyerCryptoError/memoryLimitExceeded`` instead of allocating.
    public var maxMemoryBytes: Int

    public init(logN: UInt8, r: UInt32, p: UInt32, maxMemoryBytes: Int) {
        self.logN = logN
        self.r = r
        self.p = p
        self.maxMemoryBytes = maxMemoryBytes
    }

    /// N = 2^17, r = 8, p = 1: about 128 MiB and a few hundred milliseconds per derivation, for interactive
    /// logins. The memory ceiling of 256 MiB leaves headroom above the 128 MiB the derivation needs.
    public static let interactive = ScryptParameters(logN: 17, r: 8, p: 1, maxMemoryBytes: 256 << 20)

    /// The CPU/memory cost N.
    public var n: UInt64 { 1 << UInt64(logN) }

    /// The memory the derivation allocates, as libcrypto computes it: 128·r·p bytes for B plus 128·r·(N + 2)
    /// bytes for V, X and T. Nil if that does not fit in 64 bits.
    public var requiredMemoryBytes: UInt64? {
        guard ScryptParameters.logNRange.contains(logN) else { return nil }
        let blockBytes = 128 * UInt64(r)
        let (b, bOverflow) = blockBytes.multipliedReportingOverflow(by: UInt64(p))
        let (v, vOverflow) = blockBytes.multipliedReportingOverflow(by: n + 2)
        let (total, totalOverflow) = b.addingReportingOverflow(v)
        return bOverflow || vOverflow || totalOverflow ? nil : total
    }

    /// Checks the parameters against the documented bounds and the memory ceiling.
    ///
    /// - Throws: ``FoyerCryptoError/invalidParameters`` for values out of range (including the RFC 7914
    ///   constraint N < 2^(128·r/8)), or ``FoyerCryptoError/memoryLimitExceeded`` when the derivation would
    ///   need more than ``maxMemoryBytes``.
    public func validate() throws {
        guard Self.logNRange.contains(logN) else {
            throw FoyerCryptoError.invalidParameters("scrypt logN \(logN) is outside \(Self.logNRange)")
        }
        guard Self.rRange.contains(r) else {
            throw FoyerCryptoError.invalidParameters("scrypt r \(r) is outside \(Self.rRange)")
        }
        guard Self.pRange.contains(p) else {
            throw FoyerCryptoError.invalidParameters("scrypt p \(p) is outside \(Self.pRange)")
        }
        // RFC 7914 §2: N must be less than 2^(128·r/8) = 2^(16·r).
        guard UInt64(logN) < 16 * UInt64(r) else {
            throw FoyerCryptoError.invalidParameters("scrypt needs logN < 16·r")
        }
        guard maxMemoryBytes > 0 else {
            throw FoyerCryptoError.invalidParameters("scrypt maxMemoryBytes must be positive, got \(maxMemoryBytes)")
        }
        guard let required = requiredMemoryBytes, required <= UInt64(maxMemoryBytes) else {
            let needed = requiredMemoryBytes.map { "\($0) bytes" } ?? "more than 2^64 bytes"
            throw FoyerCryptoError.memoryLimitExceeded(
                "scrypt with logN \(logN), r \(r), p \(p) needs \(needed); the limit is \(maxMemoryBytes) bytes"
            )
        }
    }
}
