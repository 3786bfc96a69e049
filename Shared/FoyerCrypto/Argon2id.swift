internal import CFoyerArgon2

/// The Argon2id password-hashing function (RFC 9106, version 0x13), through the reference implementation
/// (libargon2).
public enum Argon2id {
    /// The longest accepted password, in bytes (as ``Scrypt``).
    public static let maximumPasswordByteCount = 1024
    /// The accepted salt lengths, in bytes: RFC 9106 asks for at least 8.
    public static let saltByteCountRange: ClosedRange<Int> = 8...1024
    /// The accepted range of derived key lengths, in bytes.
    public static let outputByteCountRange: ClosedRange<Int> = 4...1024

    /// Derives `outputByteCount` bytes from `password` and `salt` (no secret, no associated data).
    ///
    /// Runs on the calling thread (with one lane; see ``Argon2Parameters/parallelism``) and allocates
    /// ``Argon2Parameters/memoryBytes`` for its duration: call it off the async executor, a bounded number at a time.
    ///
    /// - Throws: ``FoyerCryptoError/inputTooLarge`` for an over-long password, ``FoyerCryptoError/invalidParameters``
    ///   for a salt, output length or parameters out of range, and ``FoyerCryptoError/libraryFailure`` if libargon2
    ///   fails (an allocation failure).
    public static func deriveKey(
        password: some Collection<UInt8>,
        salt: some Collection<UInt8>,
        parameters: Argon2Parameters,
        outputByteCount: Int = 32
    ) throws -> [UInt8] {
        guard password.count <= maximumPasswordByteCount else {
            throw FoyerCryptoError.inputTooLarge("passwords are capped at \(maximumPasswordByteCount) bytes")
        }
        guard saltByteCountRange.contains(salt.count) else {
            throw FoyerCryptoError.invalidParameters("a salt of \(salt.count) bytes is outside \(saltByteCountRange)")
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
                key.withUnsafeMutableBytes { output in
                    argon2id_hash_raw(
                        parameters.iterations,
                        parameters.memoryKiB,
                        parameters.parallelism,
                        passwordBytes.baseAddress,
                        passwordBytes.count,
                        saltBytes.baseAddress,
                        saltBytes.count,
                        output.baseAddress,
                        output.count
                    )
                }
            }
        }
        guard status == Int32(ARGON2_OK.rawValue) else {
            let message = argon2_error_message(status).map { String(cString: $0) } ?? "error \(status)"
            throw FoyerCryptoError.libraryFailure("argon2id_hash_raw: \(message)")
        }
        return key
    }
}
