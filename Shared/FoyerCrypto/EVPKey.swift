internal import CFoyerLibcrypto

/// Owns one libcrypto `EVP_PKEY` and frees it when the last reference goes away.
///
/// The key is never modified after construction. Each signing or verifying operation creates, uses and frees its
/// own `EVP_MD_CTX`, so one key can serve any number of concurrent operations.
// @unchecked Sendable is safe: the EVP_PKEY is never mutated; each operation has its own EVP_MD_CTX.
final class EVPKey: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Takes ownership of `pointer`, which must be a valid `EVP_PKEY *` that nothing else frees.
    init(takingOwnershipOf pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    /// The largest signature this key can produce, in bytes (`EVP_PKEY_get_size`).
    var maximumSignatureSize: Int {
        Int(EVP_PKEY_get_size(pointer))
    }

    /// The key's size in bits (`EVP_PKEY_get_bits`): the curve's order for EC keys, the modulus for RSA.
    var bitCount: Int {
        Int(EVP_PKEY_get_bits(pointer))
    }

    /// Signs `message` in one shot (`EVP_DigestSign`). `digest` is nil for Ed25519, which hashes internally.
    func sign(_ message: UnsafeRawBufferPointer, digest: OpaquePointer?) throws -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw LibcryptoErrorQueue.failure("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, digest, nil, pointer) == 1 else {
            throw LibcryptoErrorQueue.failure("EVP_DigestSignInit")
        }
        let capacity = maximumSignatureSize
        guard capacity > 0 else { throw LibcryptoErrorQueue.failure("EVP_PKEY_get_size") }
        var signature = [UInt8](repeating: 0, count: capacity)
        var length = capacity
        let status = signature.withUnsafeMutableBufferPointer { output in
            EVP_DigestSign(context, output.baseAddress, &length, message.bytePointer, message.count)
        }
        guard status == 1, length <= capacity else { throw LibcryptoErrorQueue.failure("EVP_DigestSign") }
        signature.removeLast(capacity - length)
        return signature
    }

    /// Verifies `signature` over `message` in one shot (`EVP_DigestVerify`). Any failure, including a malformed
    /// signature, is reported as `false`, and the error queue is cleared.
    func verify(signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer, digest: OpaquePointer?) -> Bool {
        guard let context = EVP_MD_CTX_new() else {
            LibcryptoErrorQueue.clear()
            return false
        }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, digest, nil, pointer) == 1 else {
            LibcryptoErrorQueue.clear()
            return false
        }
        let status = EVP_DigestVerify(
            context,
            signature.bytePointer,
            signature.count,
            message.bytePointer,
            message.count
        )
        if status != 1 { LibcryptoErrorQueue.clear() }
        return status == 1
    }

    /// Runs libcrypto's public-key validation (`EVP_PKEY_public_check`); for EC keys this confirms the point
    /// lies on the curve and is not the point at infinity.
    func hasValidPublicKey() -> Bool {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, pointer, nil) else {
            LibcryptoErrorQueue.clear()
            return false
        }
        defer { EVP_PKEY_CTX_free(context) }
        let status = EVP_PKEY_public_check(context)
        if status != 1 { LibcryptoErrorQueue.clear() }
        return status == 1
    }
}
