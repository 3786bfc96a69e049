import Crypto
import FoyerBase64URL

/// The secret that makes an email link redeemable only by the client that asked for it.
///
/// `sendEmailLink` sends the `challenge` (SHA-256 of the verifier); the client keeps the verifier until the
/// link comes back (in memory, or in the session file between two runs of `foyer`), and presents it with the
/// link's token. A link scanner that fetches the URL has the token but not the verifier, so it consumes nothing.
public struct EmailLinkVerifier: Hashable, Sendable {
    /// 32 random bytes.
    public let bytes: [UInt8]

    /// A new random verifier.
    public init() {
        bytes = secureRandomBytes(count: 32)
    }

    /// A verifier kept earlier (`text`).
    public init(text: String) throws(FoyerError) {
        guard let bytes = try? Base64URL.decode(text), (1...128).contains(bytes.count) else {
            throw .invalidInput("the email-link verifier is not base64url of 1 to 128 bytes")
        }
        self.bytes = bytes
    }

    /// What the server keeps with the link: SHA-256 of the verifier (32 bytes).
    public var challenge: [UInt8] { Array(SHA256.hash(data: bytes)) }

    /// The verifier as base64url, to keep it between runs.
    public var text: String { Base64URL.encode(bytes) }
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
