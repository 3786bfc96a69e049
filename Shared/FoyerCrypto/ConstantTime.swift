internal import CFoyerLibcrypto

/// Comparisons whose running time does not depend on the content of secret data.
public enum ConstantTime {
    /// Returns whether `a` and `b` hold the same bytes, in time that depends only on their lengths
    /// (`CRYPTO_memcmp`). Inputs of different lengths are unequal; their content is not examined.
    public static func equals(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        return a.withNonNullUnsafeBytes { first in
            b.withNonNullUnsafeBytes { second in
                CRYPTO_memcmp(first.baseAddress, second.baseAddress, first.count) == 0
            }
        }
    }
}
