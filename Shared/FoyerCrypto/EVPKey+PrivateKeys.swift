internal import CFoyerLibcrypto

/// Generating private keys, and moving them in and out of libcrypto as DER and as named parameters.
extension EVPKey {
    /// Generates a key of `keyType` ("EC", "RSA"); `configure` sets the parameters on the key-generation context
    /// (the curve, the modulus size) and returns whether libcrypto accepted them.
    static func generate(keyType: UnsafePointer<CChar>, configure: (OpaquePointer) -> Bool) throws -> EVPKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, keyType, nil) else {
            throw LibcryptoErrorQueue.failure("EVP_PKEY_CTX_new_from_name")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1 else { throw LibcryptoErrorQueue.failure("EVP_PKEY_keygen_init") }
        guard configure(context) else { throw LibcryptoErrorQueue.failure("key generation parameters") }
        var key: OpaquePointer?
        guard EVP_PKEY_generate(context, &key) == 1, let key else {
            throw LibcryptoErrorQueue.failure("EVP_PKEY_generate")
        }
        return EVPKey(takingOwnershipOf: key)
    }

    /// Reads a private key of `type` (`cfoyer_pkey_ec()`, `cfoyer_pkey_rsa()`) from its traditional DER form:
    /// SEC 1 `ECPrivateKey` or PKCS #1 `RSAPrivateKey`. Every byte must belong to the key.
    static func privateKey(type: Int32, der: [UInt8]) throws -> EVPKey {
        let pointer: OpaquePointer? = der.withNonNullUnsafeBytes { bytes in
            var cursor: UnsafePointer<UInt8>? = bytes.bytePointer
            let key = d2i_PrivateKey(type, nil, &cursor, Int(bytes.count))
            guard let key, let cursor, cursor == bytes.bytePointer + bytes.count else {
                EVP_PKEY_free(key)
                return nil
            }
            return key
        }
        guard let pointer else {
            throw FoyerCryptoError.invalidKey(
                "libcrypto could not read the private key (\(LibcryptoErrorQueue.drain()))"
            )
        }
        return EVPKey(takingOwnershipOf: pointer)
    }

    /// The private key in its traditional DER form (SEC 1 for EC, PKCS #1 for RSA). Treat the result as secret.
    func privateKeyDER() throws -> [UInt8] {
        let length = Int(i2d_PrivateKey(pointer, nil))
        guard length > 0 else { throw LibcryptoErrorQueue.failure("i2d_PrivateKey") }
        var der = [UInt8](repeating: 0, count: length)
        let written = der.withUnsafeMutableBufferPointer { buffer in
            // i2d advances the pointer it is given past the bytes it writes; the buffer holds exactly `length`.
            var cursor = buffer.baseAddress
            return Int(i2d_PrivateKey(pointer, &cursor))
        }
        guard written == length else { throw LibcryptoErrorQueue.failure("i2d_PrivateKey") }
        return der
    }

    /// An octet-string parameter of the key, such as an EC public point, of at most `capacity` bytes.
    func octetStringParameter(_ name: UnsafePointer<CChar>, capacity: Int) throws -> [UInt8] {
        var value = [UInt8](repeating: 0, count: capacity)
        var length = 0
        guard EVP_PKEY_get_octet_string_param(pointer, name, &value, capacity, &length) == 1 else {
            throw LibcryptoErrorQueue.failure("EVP_PKEY_get_octet_string_param")
        }
        return Array(value.prefix(length))
    }

    /// An integer parameter of the key, such as an RSA modulus, as big-endian bytes without leading zeros.
    func integerParameter(_ name: UnsafePointer<CChar>) throws -> [UInt8] {
        var number: OpaquePointer?
        guard EVP_PKEY_get_bn_param(pointer, name, &number) == 1, let number else {
            throw LibcryptoErrorQueue.failure("EVP_PKEY_get_bn_param")
        }
        defer { BN_free(number) }
        var bytes = [UInt8](repeating: 0, count: (Int(BN_num_bits(number)) + 7) / 8)
        let written = Int(BN_bn2bin(number, &bytes))
        guard written == bytes.count else { throw LibcryptoErrorQueue.failure("BN_bn2bin") }
        return bytes
    }
}
