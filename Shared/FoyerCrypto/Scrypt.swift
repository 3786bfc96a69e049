internal import CFoyerLibcrypto

/// The scrypt password-based key derivation function (RFC 7914), through libcrypto's `EVP_PBE_scrypt`.
public enum Scrypt {
    /// The longest accepted password, in bytes. Longer input throws before any work is done, so a caller cannot
    /// be made to hash megabytes per request.
    public static let maximumPasswordByteCount = 1024
    /// The longest accepted salt, in bytes.
    public static let maximumSaltByteCount = 1024
    /// The accepted range of derived key lengths, in bytes.
    public static let outputByteCountRange: ClosedRange<Int> = 1...1024

    /// Derives `outputByteCount` bytes from `password` and `salt`.
    ///
    /// The parameters are validated first (see ``ScryptParameters/validate()``), and libcrypto is given
    /// ``ScryptParameters/maxMemoryBytes`` as its memory ceiling.
    ///
    /// - Throws: ``FoyerCryptoError/inputTooLarge`` for an over-long password or salt,
    ///   ``FoyerCryptoError/invalidParameters`` or ``FoyerCryptoError/memoryLimitExceeded`` for unusable
    ///   parameters, and ``FoyerCryptoError/libraryFailure`` if libcrypto cannot allocate.
    public static func deriveKey(
        password: some Collection<UInt8>,
        salt: some Collection<UInt8>,
        parameters: ScryptParameters,
        outputByteCount: Int = 32
    ) throws -> [UInt8] {
        guard password.count <= maximumPasswordByteCount else {
            throw FoyerCryptoError.inputTooLarge("passwords are capped at \(maximumPasswordByteCount) bytes")
        }
        guard salt.count <= maximumSaltByteCount else {
            throw FoyerCryptoError.inputTooLarge("salts are capped at \(maximumSaltByteCount) bytes")
        }
        guard outputByteCountRange.contains(outputByteCount) else {
            throw FoyerCryptoError.invalidParameters(
                "a derived key of \(outputByteCount) bytes is outside \(outputByteCountRange)"
            )
        }
        try parameters.validate()

        var key = [UInt8](repeating: 0, count: outputByteCount)
        let status = password.withNonNullUnsafeBytes { passwordBytes in
            salt.withNonNullUnsafeBytes { saltBytes in
                key.withUnsafeMutableBufferPointer { output in
                    passwordBytes.withMemoryRebound(to: CChar.self) { passwordCharacters in
                        EVP_PBE_scrypt(
                            passwordCharacters.baseAddress,
                            passwordCharacters.count,
                            saltBytes.bytePointer,
                            saltBytes.count,
                            parameters.n,
                            UInt64(parameters.r),
                            UInt64(parameters.p),
                            UInt64(parameters.maxMemoryBytes),
                            output.baseAddress,
                            output.count
                        )
                    }
                }
            }
        }
        guard status == 1 else {
            // The parameters passed the same checks libcrypto makes, so this is an allocation failure.
            throw LibcryptoErrorQueue.failure("EVP_PBE_scrypt")
        }
        return key
    }
}
