import Crypto
import FoyerAPI
import FoyerBase64URL

/// The secret that makes an email link redeemable only by the client that asked for it: PKCE as RFC 7636 has it.
///
/// `sendEmailLink` sends the `challenge` (S256: SHA-256 of the verifier's ASCII text); the client keeps the
/// verifier until the link comes back (in memory, or in the session file between two runs of `foyer`), and
/// presents it with the link's token. A link scanner that fetches the URL has the token but not the verifier, so
/// it consumes nothing.
public struct EmailLinkVerifier: Hashable, Sendable {
    /// The verifier's text as ASCII bytes: 43 unreserved characters (the base64url of 32 random bytes) for a new one.
    public let bytes: [UInt8]

    /// A new random verifier.
    public init() {
        bytes = Array(Base64URL.encode(secureRandomBytes(count: 32)).utf8)
    }

    /// A verifier kept earlier (`text`): 1-128 of `A-Z a-z 0-9 - . _ ~`.
    public init(text: String) throws(FoyerError) {
        let bytes = Array(text.utf8)
        guard CodeVerifier.isValid(bytes) else {
            throw .invalidInput("the email-link verifier is not 1 to 128 characters of A-Z a-z 0-9 - . _ ~")
        }
        self.bytes = bytes
    }

    /// What the server keeps with the link: SHA-256 of the verifier's text (32 bytes; its base64url is RFC 7636's
    /// S256 `code_challenge`).
    public var challenge: [UInt8] { Array(SHA256.hash(data: bytes)) }

    /// The verifier's text, to keep it between runs and to send it over HTTP.
    public var text: String { Self.text(of: bytes) }

    /// A verifier's text from the bytes a request carries.
    static func text(of bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}

/// The nonce of a Sign in with Apple / Google request.
///
/// Give `hashed` to the provider's SDK (it ends up in the ID token's `nonce` claim) and `raw` to
/// `signIn(provider:idToken:rawNonce:)` or `link(...)`; identity checks `nonce == hex(sha256(raw))` and refuses a
/// nonce it has seen before.
public struct IDTokenNonce: Hashable, Sendable {
    /// 32 random bytes as base64url.
    public let raw: String

    public init() {
        raw = Base64URL.encode(secureRandomBytes(count: 32))
    }

    public init(raw: String) {
        self.raw = raw
    }

    /// Lower-case hex of SHA-256 of `raw`.
    public var hashed: String {
        SHA256.hash(data: Array(raw.utf8)).map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }
}

extension EmailLinkVerifier {
    /// The token in an email link (`foyer://email-link#token=T`, `https://app.example/link?token=T`), or the text
    /// itself when it is a bare token.
    public static func token(fromLink text: String) -> String {
        let trimmed = text.trimmingWhitespace()
        guard let range = trimmed.range(of: "token=") else { return trimmed }
        let rest = trimmed[range.upperBound...]
        let end = rest.firstIndex { $0 == "&" || $0 == "#" || $0.isWhitespace } ?? rest.endIndex
        return String(rest[..<end])
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }
}
