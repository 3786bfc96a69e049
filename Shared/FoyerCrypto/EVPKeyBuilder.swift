internal import CFoyerLibcrypto

/// Imports a public key from named parameters with OpenSSL 3's `EVP_PKEY_fromdata` and `OSSL_PARAM_BLD`.
///
/// `OSSL_PARAM_BLD` keeps the pointers it is given (names, big numbers, octet strings) until the parameter array
/// is built, so the builder owns a copy of every value and frees them all in `deinit`. Parameter names must
/// point to static storage; the `cfoyer_param_*` helpers of the C shim return string literals.
final class EVPKeyBuilder {
    private let builder: OpaquePointer
    private var bigNumbers: [OpaquePointer] = []
    private var buffers: [UnsafeMutableRawBufferPointer] = []

    init() throws {
        guard let builder = OSSL_PARAM_BLD_new() else { throw LibcryptoErrorQueue.failure("OSSL_PARAM_BLD_new") }
        self.builder = builder
    }

    deinit {
        OSSL_PARAM_BLD_free(builder)
        for number in bigNumbers {
            BN_free(number)
        }
        for buffer in buffers {
            buffer.deallocate()
        }
    }

    /// Adds an unsigned integer given as big-endian bytes (leading zero bytes are allowed).
    func addInteger(_ name: UnsafePointer<CChar>, bigEndian bytes: [UInt8]) throws {
        let number = bytes.withNonNullUnsafeBytes { input in
            BN_bin2bn(input.bytePointer, Int32(input.count), nil)
        }
        guard let number else { throw LibcryptoErrorQueue.failure("BN_bin2bn") }
        bigNumbers.append(number)
        guard OSSL_PARAM_BLD_push_BN(builder, name, number) == 1 else {
            throw LibcryptoErrorQueue.failure("OSSL_PARAM_BLD_push_BN")
        }
    }

    /// Adds a UTF-8 string that has static storage (for example a group name from the C shim).
    func addStaticUTF8String(_ name: UnsafePointer<CChar>, _ value: UnsafePointer<CChar>) throws {
        guard OSSL_PARAM_BLD_push_utf8_string(builder, name, value, 0) == 1 else {
            throw LibcryptoErrorQueue.failure("OSSL_PARAM_BLD_push_utf8_string")
        }
    }

    /// Adds an octet string, copied into memory the builder owns.
    func addOctetString(_ name: UnsafePointer<CChar>, _ bytes: [UInt8]) throws {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
        buffers.append(copy)
        bytes.withUnsafeBytes { source in copy.copyMemory(from: source) }
        guard OSSL_PARAM_BLD_push_octet_string(builder, name, copy.baseAddress, bytes.count) == 1 else {
            throw LibcryptoErrorQueue.failure("OSSL_PARAM_BLD_push_octet_string")
        }
    }

    /// Builds a public key of `keyType` (a static string such as `cfoyer_key_type_rsa()`) from the parameters.
    func makePublicKey(keyType: UnsafePointer<CChar>) throws -> EVPKey {
        guard let parameters = OSSL_PARAM_BLD_to_param(builder) else {
            throw LibcryptoErrorQueue.failure("OSSL_PARAM_BLD_to_param")
        }
        defer { OSSL_PARAM_free(parameters) }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, keyType, nil) else {
            throw LibcryptoErrorQueue.failure("EVP_PKEY_CTX_new_from_name")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_fromdata_init(context) == 1 else { throw LibcryptoErrorQueue.failure("EVP_PKEY_fromdata_init") }
        var key: OpaquePointer?
        guard EVP_PKEY_fromdata(context, &key, cfoyer_selection_public_key(), parameters) == 1, let key else {
            // Reached for parameters libcrypto refuses, such as a point that does not decode on the curve.
            throw FoyerCryptoError.invalidKey("libcrypto rejected the key parameters (\(LibcryptoErrorQueue.drain()))")
        }
        return EVPKey(takingOwnershipOf: key)
    }
}
