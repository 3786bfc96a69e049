/// Entry point for reading compact JWS / JWT tokens (RFC 7515 §7.1, RFC 7519).
///
/// ```swift
/// let token = try JWT.decode(text)                         // structure, header and allowlisted alg only
/// let verified = try token.verify(with: keySet)            // signature with the key named by kid
/// let claims = try verified.claims(as: SessionClaims.self) // exp, iss, aud checks are the caller's
/// ```
public enum JWT {
    /// The default cap on a token's length, in bytes: 8 KiB, well above any token Foyer issues or accepts.
    public static let defaultMaxLength = 8 << 10

    /// Splits and decodes a compact JWS without verifying its signature.
    ///
    /// Checks, in order: the length cap (before any parsing), exactly three `.`-separated segments, a non-empty
    /// header segment in strict base64url, a header that is a JSON object with unique member names, a string `alg`
    /// on the ``JWSAlgorithm`` allowlist and no `crit`, then a non-empty signature segment, and the payload and
    /// signature in strict base64url. So `alg: none` is ``FoyerCryptoError/unsupportedAlgorithm`` with or without
    /// a signature segment.
    ///
    /// - Throws: ``FoyerCryptoError/inputTooLarge``, ``FoyerCryptoError/malformedToken``,
    ///   ``FoyerCryptoError/unsupportedAlgorithm`` (including `alg: none`) or
    ///   ``FoyerCryptoError/unsupportedCriticalHeader``.
    public static func decode(_ token: some StringProtocol, maxLength: Int = defaultMaxLength) throws -> UnverifiedJWT {
        let length = token.utf8.count
        guard length <= maxLength else {
            throw FoyerCryptoError.inputTooLarge("a token of \(length) bytes exceeds the \(maxLength)-byte cap")
        }
        let bytes = Array(token.utf8)
        let segments = bytes.split(separator: UInt8(ascii: "."), maxSplits: 3, omittingEmptySubsequences: false)
        guard segments.count == 3 else {
            throw FoyerCryptoError.malformedToken("a compact JWS has 3 segments, found \(segments.count)")
        }
        let (headerSegment, payloadSegment, signatureSegment) = (segments[0], segments[1], segments[2])
        guard !headerSegment.isEmpty else { throw FoyerCryptoError.malformedToken("the header segment is empty") }
        let headerJSON = try decodeSegment(headerSegment, name: "header")
        // RFC 7515 §4: header parameter names must be unique. JSONDecoder would silently keep one duplicate.
        guard JSONObjectScanner.isObjectWithUniqueMemberNames(headerJSON) else {
            throw FoyerCryptoError.malformedToken("the header is not a JSON object with unique member names")
        }
        // The header before the signature's presence: an unsecured JWS (`alg: none`, empty signature) is refused
        // for its algorithm, the same status with or without a signature segment.
        let header = try JOSEJSON.decode(
            JWSHeaderJSON.self,
            from: headerJSON,
            failure: .malformedToken("the header is not a JSON object with a string alg")
        ).header
        guard !signatureSegment.isEmpty else {
            throw FoyerCryptoError.malformedToken("the signature segment is empty")
        }
        let payload = try decodeSegment(payloadSegment, name: "payload")
        let signature = try decodeSegment(signatureSegment, name: "signature")
        return UnverifiedJWT(
            header: header,
            headerJSON: headerJSON,
            payload: payload,
            signingInput: Array(bytes[..<signatureSegment.startIndex].dropLast()),
            signature: signature
        )
    }

    private static func decodeSegment(_ segment: ArraySlice<UInt8>, name: String) throws -> [UInt8] {
        do {
            return try Base64URL.decode(utf8: segment, maxEncodedLength: segment.count)
        } catch {
            throw FoyerCryptoError.malformedToken("the \(name) segment is not strict base64url")
        }
    }
}
