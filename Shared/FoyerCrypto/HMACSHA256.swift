internal import CFoyerLibcrypto

/// HMAC (RFC 2104) with SHA-256, through libcrypto's one-shot `EVP_Q_mac`.
public enum HMACSHA256 {
    /// The authentication code size in bytes.
    public static let byteCount = 32

    /// Returns HMAC-SHA-256 of `message` under `key`. Keys of any length are accepted; keys longer than the
    /// 64-byte block are hashed first, as RFC 2104 specifies.
    public static func authenticationCode(key: some Collection<UInt8>, message: some Collection<UInt8>) -> [UInt8] {
        key.withNonNullUnsafeBytes { keyBytes in
            message.withNonNullUnsafeBytes { messageBytes in
                compute(key: keyBytes, message: messageBytes)
            }
        }
    }

    /// Checks `code` against the HMAC-SHA-256 of `message` under `key` in constant time.
    public static func isValidAuthenticationCode(
        _ code: some Collection<UInt8>,
        key: some Collection<UInt8>,
        message: some Collection<UInt8>
    ) -> Bool {
        ConstantTime.equals(authenticationCode(key: key, message: message), code)
    }

    private static func compute(key: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: byteCount) { output, initializedCount in
            var outputLength = 0
            let result = EVP_Q_mac(
                nil,
                "HMAC",
                nil,
                "SHA256",
                nil,
                key.baseAddress,
                key.count,
                message.bytePointer,
                message.count,
                output.baseAddress,
                byteCount,
                &outputLength
            )
            // HMAC-SHA-256 is defined for every key and message; a failure means libcrypto itself is unusable
            // (out of memory, or a provider configuration without HMAC or SHA-256).
            guard result != nil, outputLength == byteCount else {
                preconditionFailure("EVP_Q_mac(HMAC-SHA256) failed: \(LibcryptoErrorQueue.drain())")
            }
            initializedCount = byteCount
        }
    }
}
