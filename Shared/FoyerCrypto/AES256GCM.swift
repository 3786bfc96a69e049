internal import CFoyerLibcrypto

/// AES-256-GCM (NIST SP 800-38D) through libcrypto's EVP interface: authenticated encryption with associated data.
///
/// ``seal(_:key:associatedData:)`` draws a fresh random 96-bit nonce for every call (never pass a key to a party
/// that seals with chosen nonces: a nonce used twice under one key gives away the authentication key), and
/// ``open(_:key:associatedData:)`` refuses any change to the nonce, ciphertext, tag or associated data, and any
/// other key, with ``FoyerCryptoError/authenticationFailed``, releasing no plaintext.
///
/// ```swift
/// let box = try AES256GCM.seal(secret, key: kek, associatedData: Array(keyID.utf8))
/// let again = try AES256GCM.open(box, key: kek, associatedData: Array(keyID.utf8))
/// ```
public enum AES256GCM {
    /// The key size in bytes.
    public static let keyByteCount = 32
    /// The nonce size in bytes (96 bits, the size GCM is specified for).
    public static let nonceByteCount = 12
    /// The authentication tag size in bytes (the full 128 bits).
    public static let tagByteCount = 16
    /// The largest plaintext (and associated data) accepted: 1 MiB. The callers seal keys and other small secrets.
    public static let messageByteCountMax = 1 << 20

    /// A sealed message: nonce, ciphertext (as long as the plaintext) and tag.
    public struct SealedBox: Sendable, Equatable {
        public let nonce: [UInt8]
        public let ciphertext: [UInt8]
        public let tag: [UInt8]

        /// - Throws: ``FoyerCryptoError/invalidParameters`` if the nonce or the tag has the wrong size,
        ///   ``FoyerCryptoError/inputTooLarge`` if the ciphertext is longer than ``messageByteCountMax``.
        public init(nonce: [UInt8], ciphertext: [UInt8], tag: [UInt8]) throws {
            guard nonce.count == AES256GCM.nonceByteCount, tag.count == AES256GCM.tagByteCount else {
                throw FoyerCryptoError.invalidParameters(
                    "AES-256-GCM takes a \(AES256GCM.nonceByteCount)-byte nonce and a \(AES256GCM.tagByteCount)-byte tag"
                )
            }
            guard ciphertext.count <= AES256GCM.messageByteCountMax else {
                throw FoyerCryptoError.inputTooLarge(
                    "AES-256-GCM ciphertext over \(AES256GCM.messageByteCountMax) bytes"
                )
            }
            self.nonce = nonce
            self.ciphertext = ciphertext
            self.tag = tag
        }

        /// Reads `nonce ‖ ciphertext ‖ tag` (the layout of ``combined``).
        ///
        /// - Throws: ``FoyerCryptoError/invalidParameters`` if `combined` is shorter than a nonce and a tag.
        public init(combined: [UInt8]) throws {
            let overhead = AES256GCM.nonceByteCount + AES256GCM.tagByteCount
            guard combined.count >= overhead else {
                throw FoyerCryptoError.invalidParameters("a sealed AES-256-GCM box is at least \(overhead) bytes")
            }
            try self.init(
                nonce: Array(combined.prefix(AES256GCM.nonceByteCount)),
                ciphertext: Array(combined.dropFirst(AES256GCM.nonceByteCount).dropLast(AES256GCM.tagByteCount)),
                tag: Array(combined.suffix(AES256GCM.tagByteCount))
            )
        }

        /// `nonce ‖ ciphertext ‖ tag`: what a caller stores.
        public var combined: [UInt8] { nonce + ciphertext + tag }
    }

    /// Encrypts and authenticates `plaintext`, and authenticates `associatedData`, under `key` with a fresh random
    /// nonce.
    ///
    /// - Throws: ``FoyerCryptoError/invalidKey`` if `key` is not 32 bytes, ``FoyerCryptoError/inputTooLarge`` if
    ///   `plaintext` or `associatedData` is longer than ``messageByteCountMax``.
    public static func seal(
        _ plaintext: some Collection<UInt8>,
        key: some Collection<UInt8>,
        associatedData: some Collection<UInt8> = [UInt8]()
    ) throws -> SealedBox {
        try seal(plaintext, key: key, nonce: SecureRandom.bytes(count: nonceByteCount), associatedData: associatedData)
    }

    /// ``seal(_:key:associatedData:)`` with a nonce of the caller's: for known-answer tests only. A nonce must
    /// never be used twice under one key.
    public static func seal(
        _ plaintext: some Collection<UInt8>,
        key: some Collection<UInt8>,
        nonce: [UInt8],
        associatedData: some Collection<UInt8> = [UInt8]()
    ) throws -> SealedBox {
        try checkSizes(key: key.count, message: plaintext.count, associatedData: associatedData.count)
        guard nonce.count == nonceByteCount else {
            throw FoyerCryptoError.invalidParameters("AES-256-GCM takes a \(nonceByteCount)-byte nonce")
        }
        let context = try CipherContext()
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count)
        var tag = [UInt8](repeating: 0, count: tagByteCount)
        try key.withNonNullUnsafeBytes { key in
            try nonce.withNonNullUnsafeBytes { nonce in
                guard
                    EVP_EncryptInit_ex(context.pointer, EVP_aes_256_gcm(), nil, key.bytePointer, nonce.bytePointer) == 1
                else { throw LibcryptoErrorQueue.failure("EVP_EncryptInit_ex(AES-256-GCM)") }
            }
        }
        try associatedData.withNonNullUnsafeBytes { data in
            try context.update(encrypting: true, input: data, output: nil)
        }
        try plaintext.withNonNullUnsafeBytes { input in
            try ciphertext.withUnsafeMutableBytes { output in
                try context.update(encrypting: true, input: input, output: output)
            }
        }
        guard context.finish(encrypting: true) else {
            throw LibcryptoErrorQueue.failure("EVP_EncryptFinal_ex(AES-256-GCM)")
        }
        try tag.withUnsafeMutableBytes { tag in
            guard
                EVP_CIPHER_CTX_ctrl(context.pointer, cfoyer_ctrl_gcm_get_tag(), Int32(tagByteCount), tag.baseAddress)
                    == 1
            else { throw LibcryptoErrorQueue.failure("EVP_CIPHER_CTX_ctrl(GCM get tag)") }
        }
        return try SealedBox(nonce: nonce, ciphertext: ciphertext, tag: tag)
    }

    /// Checks the tag over `box` and `associatedData` under `key` and returns the plaintext.
    ///
    /// - Throws: ``FoyerCryptoError/authenticationFailed`` if the tag does not match (a changed nonce, ciphertext,
    ///   tag or associated data, or another key), ``FoyerCryptoError/invalidKey`` if `key` is not 32 bytes,
    ///   ``FoyerCryptoError/inputTooLarge`` if `associatedData` is longer than ``messageByteCountMax``.
    public static func open(
        _ box: SealedBox,
        key: some Collection<UInt8>,
        associatedData: some Collection<UInt8> = [UInt8]()
    ) throws -> [UInt8] {
        try checkSizes(key: key.count, message: box.ciphertext.count, associatedData: associatedData.count)
        let context = try CipherContext()
        var plaintext = [UInt8](repeating: 0, count: box.ciphertext.count)
        try key.withNonNullUnsafeBytes { key in
            try box.nonce.withNonNullUnsafeBytes { nonce in
                guard
                    EVP_DecryptInit_ex(context.pointer, EVP_aes_256_gcm(), nil, key.bytePointer, nonce.bytePointer) == 1
                else { throw LibcryptoErrorQueue.failure("EVP_DecryptInit_ex(AES-256-GCM)") }
            }
        }
        try associatedData.withNonNullUnsafeBytes { data in
            try context.update(encrypting: false, input: data, output: nil)
        }
        try box.ciphertext.withNonNullUnsafeBytes { input in
            try plaintext.withUnsafeMutableBytes { output in
                try context.update(encrypting: false, input: input, output: output)
            }
        }
        var tag = box.tag
        try tag.withUnsafeMutableBytes { tag in
            guard
                EVP_CIPHER_CTX_ctrl(context.pointer, cfoyer_ctrl_gcm_set_tag(), Int32(tagByteCount), tag.baseAddress)
                    == 1
            else { throw LibcryptoErrorQueue.failure("EVP_CIPHER_CTX_ctrl(GCM set tag)") }
        }
        guard context.finish(encrypting: false) else {
            LibcryptoErrorQueue.clear()
            plaintext.withUnsafeMutableBytes { bytes in OPENSSL_cleanse(bytes.baseAddress, bytes.count) }
            throw FoyerCryptoError.authenticationFailed(
                "the tag does not match: the sealed box or its associated data was changed, or the key is another"
            )
        }
        return plaintext
    }

    private static func checkSizes(key: Int, message: Int, associatedData: Int) throws {
        guard key == keyByteCount else {
            throw FoyerCryptoError.invalidKey("an AES-256 key is \(keyByteCount) bytes, got \(key)")
        }
        guard message <= messageByteCountMax, associatedData <= messageByteCountMax else {
            throw FoyerCryptoError.inputTooLarge("AES-256-GCM input over \(messageByteCountMax) bytes")
        }
    }
}

/// An `EVP_CIPHER_CTX`, freed (and cleansed by libcrypto) when the value goes away.
private final class CipherContext {
    let pointer: OpaquePointer

    init() throws {
        guard let pointer = EVP_CIPHER_CTX_new() else { throw LibcryptoErrorQueue.failure("EVP_CIPHER_CTX_new") }
        self.pointer = pointer
    }

    deinit { EVP_CIPHER_CTX_free(pointer) }

    /// Feeds `input` through the cipher: as associated data when `output` is nil, else into `output` (as long as
    /// `input`: GCM is a stream mode). Empty input is skipped.
    func update(encrypting: Bool, input: UnsafeRawBufferPointer, output: UnsafeMutableRawBufferPointer?) throws {
        guard !input.isEmpty else { return }
        var length: Int32 = 0
        let out = output?.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let status =
            encrypting
            ? EVP_EncryptUpdate(pointer, out, &length, input.bytePointer, Int32(input.count))
            : EVP_DecryptUpdate(pointer, out, &length, input.bytePointer, Int32(input.count))
        guard status == 1, Int(length) == input.count else {
            throw LibcryptoErrorQueue.failure(encrypting ? "EVP_EncryptUpdate" : "EVP_DecryptUpdate")
        }
    }

    /// Ends the message (GCM writes nothing more here); when decrypting, whether the tag set before matched.
    func finish(encrypting: Bool) -> Bool {
        var scratch = [UInt8](repeating: 0, count: AES256GCM.tagByteCount)
        var length: Int32 = 0
        let status = scratch.withUnsafeMutableBufferPointer { buffer in
            encrypting
                ? EVP_EncryptFinal_ex(pointer, buffer.baseAddress, &length)
                : EVP_DecryptFinal_ex(pointer, buffer.baseAddress, &length)
        }
        return status == 1 && length == 0
    }
}
