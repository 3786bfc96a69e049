internal import CFoyerLibcrypto

/// Cryptographically secure random bytes from libcrypto's CSPRNG (`RAND_bytes`).
///
/// A failing CSPRNG is treated as fatal: no key, salt or token generated afterwards could be trusted, and the
/// failure is not caused by anything the caller passed in.
public enum SecureRandom {
    /// `RAND_bytes` takes an `int` count, so larger requests are served in chunks of at most this size.
    private static let maximumChunk = Int(Int32.max)

    /// Returns `count` random bytes. `count` must not be negative.
    public static func bytes(count: Int) -> [UInt8] {
        precondition(count >= 0, "SecureRandom.bytes(count:) needs a non-negative count, got \(count)")
        return [UInt8](unsafeUninitializedCapacity: count) { buffer, initializedCount in
            fill(UnsafeMutableRawBufferPointer(buffer))
            initializedCount = count
        }
    }

    /// Overwrites every byte of `buffer` with random bytes.
    public static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        var offset = 0
        while offset < buffer.count {
            let chunk = min(buffer.count - offset, maximumChunk)
            let status = (base + offset).withMemoryRebound(to: UInt8.self, capacity: chunk) { bytes in
                RAND_bytes(bytes, Int32(chunk))
            }
            if status != 1 {
                preconditionFailure(
                    "the CSPRNG failed (RAND_bytes: \(LibcryptoErrorQueue.drain())); refusing to continue"
                )
            }
            offset += chunk
        }
    }
}
