internal import FoyerBase64URL

/// Unpadded base64url (RFC 4648 §5), as used by JWS, JWK and JWT: `FoyerBase64URL`'s codec, with its errors as
/// ``FoyerCryptoError``.
///
/// Decoding is strict so that every byte string has exactly one accepted encoding: padding (`=`), whitespace,
/// characters outside `A–Z a–z 0–9 - _`, impossible lengths (a remainder of 1 modulo 4) and non-zero trailing
/// bits in the last character are all rejected with ``FoyerCryptoError/invalidBase64URL``.
public enum Base64URL {
    /// The default cap on the encoded length accepted by ``decode(_:maxEncodedLength:)``: 1 MiB of text.
    public static let defaultMaxEncodedLength = FoyerBase64URL.Base64URL.defaultMaxEncodedLength

    /// Encodes `bytes` without padding.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        FoyerBase64URL.Base64URL.encode(bytes)
    }

    /// Decodes unpadded base64url text.
    ///
    /// - Parameter maxEncodedLength: the longest text (in UTF-8 bytes) accepted; longer input throws
    ///   ``FoyerCryptoError/inputTooLarge`` before any decoding work.
    public static func decode(
        _ string: some StringProtocol,
        maxEncodedLength: Int = defaultMaxEncodedLength
    ) throws -> [UInt8] {
        try decode(utf8: string.utf8, maxEncodedLength: maxEncodedLength)
    }

    /// Decodes base64url given as UTF-8 bytes (for example one segment of a compact JWS).
    static func decode(utf8: some Collection<UInt8>, maxEncodedLength: Int) throws -> [UInt8] {
        do {
            return try FoyerBase64URL.Base64URL.decode(utf8: utf8, maxEncodedLength: maxEncodedLength)
        } catch {
            throw error.isTooLong ? FoyerCryptoError.inputTooLarge(error.detail) : .invalidBase64URL(error.detail)
        }
    }
}
