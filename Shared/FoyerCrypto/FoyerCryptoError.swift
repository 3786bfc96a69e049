/// The error thrown by every FoyerCrypto API that can fail because of its input.
///
/// Compare against the static constants to branch on the kind of failure:
///
/// ```swift
/// do { _ = try JWT.decode(token) } catch let error as FoyerCryptoError where error == .malformedToken { … }
/// ```
///
/// Equality and hashing consider only the kind; ``detail`` carries context for logs and never contains key
/// material or the content of the rejected input.
public struct FoyerCryptoError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case invalidBase64URL
        case inputTooLarge
        case invalidKey
        case invalidParameters
        case memoryLimitExceeded
        case malformedToken
        case unsupportedAlgorithm
        case algorithmMismatch
        case unsupportedCriticalHeader
        case unknownKeyID
        case signatureVerificationFailed
        case authenticationFailed
        case invalidClaims
        case libraryFailure
    }

    private let code: Code

    /// Context for logs (for example which limit was exceeded). Not part of equality.
    public let detail: String

    private init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    /// Text that is not unpadded base64url (RFC 4648 §5), or has an impossible length or non-zero trailing bits.
    public static let invalidBase64URL = FoyerCryptoError(.invalidBase64URL)
    /// An input exceeds a documented length cap; it was rejected before any parsing or computation.
    public static let inputTooLarge = FoyerCryptoError(.inputTooLarge)
    /// Key material has the wrong size, is out of the accepted range, or is not a valid key (e.g. off-curve point).
    public static let invalidKey = FoyerCryptoError(.invalidKey)
    /// Parameters (for example scrypt's cost or output length) are outside the accepted bounds.
    public static let invalidParameters = FoyerCryptoError(.invalidParameters)
    /// The operation needs more memory than the caller's limit allows.
    public static let memoryLimitExceeded = FoyerCryptoError(.memoryLimitExceeded)
    /// A compact JWS is not three well-formed base64url segments with a JSON object header.
    public static let malformedToken = FoyerCryptoError(.malformedToken)
    /// The `alg` is not one of ``JWSAlgorithm`` (this includes `none`), or a JWK names an unsupported key type.
    public static let unsupportedAlgorithm = FoyerCryptoError(.unsupportedAlgorithm)
    /// The token's `alg` differs from the algorithm of the key it is verified with.
    public static let algorithmMismatch = FoyerCryptoError(.algorithmMismatch)
    /// The JWS header carries `crit`, which this implementation does not support.
    public static let unsupportedCriticalHeader = FoyerCryptoError(.unsupportedCriticalHeader)
    /// No key in the key set has the token's `kid` (or the token has no `kid`).
    public static let unknownKeyID = FoyerCryptoError(.unknownKeyID)
    /// The signature does not verify.
    public static let signatureVerificationFailed = FoyerCryptoError(.signatureVerificationFailed)
    /// An authenticated ciphertext (AES-256-GCM) does not open: its nonce, ciphertext, tag or associated data was
    /// changed, or the key is another. No plaintext is released.
    public static let authenticationFailed = FoyerCryptoError(.authenticationFailed)
    /// The JWT payload is not a JSON object of the expected shape, or claims could not be encoded.
    public static let invalidClaims = FoyerCryptoError(.invalidClaims)
    /// libcrypto failed for a reason unrelated to the input (typically memory exhaustion).
    public static let libraryFailure = FoyerCryptoError(.libraryFailure)

    static func invalidBase64URL(_ detail: String) -> Self { Self(.invalidBase64URL, detail) }
    static func inputTooLarge(_ detail: String) -> Self { Self(.inputTooLarge, detail) }
    static func invalidKey(_ detail: String) -> Self { Self(.invalidKey, detail) }
    static func invalidParameters(_ detail: String) -> Self { Self(.invalidParameters, detail) }
    static func memoryLimitExceeded(_ detail: String) -> Self { Self(.memoryLimitExceeded, detail) }
    static func malformedToken(_ detail: String) -> Self { Self(.malformedToken, detail) }
    static func unsupportedAlgorithm(_ detail: String) -> Self { Self(.unsupportedAlgorithm, detail) }
    static func algorithmMismatch(_ detail: String) -> Self { Self(.algorithmMismatch, detail) }
    static func unsupportedCriticalHeader(_ detail: String) -> Self { Self(.unsupportedCriticalHeader, detail) }
    static func unknownKeyID(_ detail: String) -> Self { Self(.unknownKeyID, detail) }
    static func signatureVerificationFailed(_ detail: String) -> Self { Self(.signatureVerificationFailed, detail) }
    static func authenticationFailed(_ detail: String) -> Self { Self(.authenticationFailed, detail) }
    static func invalidClaims(_ detail: String) -> Self { Self(.invalidClaims, detail) }
    static func libraryFailure(_ detail: String) -> Self { Self(.libraryFailure, detail) }

    /// The same kind of error with different context.
    func withDetail(_ detail: String) -> Self { Self(code, detail) }

    public static func == (lhs: FoyerCryptoError, rhs: FoyerCryptoError) -> Bool {
        lhs.code == rhs.code
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
    }

    public var description: String {
        detail.isEmpty ? summary : "\(summary): \(detail)"
    }

    private var summary: String {
        switch code {
        case .invalidBase64URL: "invalid base64url"
        case .inputTooLarge: "input too large"
        case .invalidKey: "invalid key"
        case .invalidParameters: "invalid parameters"
        case .memoryLimitExceeded: "memory limit exceeded"
        case .malformedToken: "malformed token"
        case .unsupportedAlgorithm: "unsupported algorithm"
        case .algorithmMismatch: "algorithm mismatch"
        case .unsupportedCriticalHeader: "unsupported critical header"
        case .unknownKeyID: "unknown key ID"
        case .signatureVerificationFailed: "signature verification failed"
        case .authenticationFailed: "authentication failed"
        case .invalidClaims: "invalid claims"
        case .libraryFailure: "libcrypto failure"
        }
    }
}
