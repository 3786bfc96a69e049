internal import CFoyerLibcrypto

/// SHA-256 (FIPS 180-4) through libcrypto's EVP interface.
public enum SHA256 {
    /// The digest size in bytes.
    public static let byteCount = 32

    /// Returns the SHA-256 digest of `data`.
    public static func hash(_ data: some Collection<UInt8>) -> [UInt8] {
        data.withNonNullUnsafeBytes { bytes in hash(bytes) }
    }

    /// Returns the SHA-256 digest of the bytes in `buffer` (an empty buffer may have a nil base address).
    public static func hash(_ buffer: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: byteCount) { digest, initializedCount in
            var digestLength: UInt32 = 0
            let status = EVP_Digest(
                buffer.baseAddress,
                buffer.count,
                digest.baseAddress,
                &digestLength,
                EVP_sha256(),
                nil
            )
            // SHA-256 cannot fail on any input; a failure means libcrypto itself is unusable (out of memory or
            // a provider configuration without SHA-256), which no caller could recover from.
            guard status == 1, digestLength == UInt32(byteCount) else {
                preconditionFailure("EVP_Digest(SHA-256) failed: \(LibcryptoErrorQueue.drain())")
            }
            initializedCount = byteCount
        }
    }
}
