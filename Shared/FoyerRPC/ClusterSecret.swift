internal import Crypto
internal import FoyerBase64URL

/// The secret shared by the services of one Foyer cluster. Internal listeners accept a connection only from a
/// peer that proves it holds this secret in the handshake; the secret itself never crosses the wire.
public struct ClusterSecret: Sendable {
    /// Secrets shorter than this are refused: the proof is only as strong as the secret.
    public static let byteCountMin = 32

    let bytes: [UInt8]

    public init(bytes: [UInt8]) throws(RPCError) {
        guard bytes.count >= Self.byteCountMin else {
            throw RPCError(.invalidArgument, "cluster secret must be at least \(Self.byteCountMin) bytes")
        }
        self.bytes = bytes
    }

    /// Parses the textual form: base64url (unpadded), as written by `generate().text`.
    public init(text: String) throws(RPCError) {
        // A secret file usually ends with a newline; surrounding whitespace is not part of the secret.
        let words = text.split(whereSeparator: \.isWhitespace)
        guard words.count == 1, let bytes = try? Base64URL.decode(words[0]) else {
            throw RPCError(.invalidArgument, "cluster secret is not base64url text")
        }
        try self.init(bytes: bytes)
    }

    /// A new random 256-bit secret.
    public static func generate() -> ClusterSecret {
        // 32 random bytes always satisfy the length check.
        try! ClusterSecret(bytes: HandshakeAuthenticator.randomBytes(count: 32))
    }

    /// The base64url text form, for a secret file or an environment variable.
    public var text: String { Base64URL.encode(bytes) }

    /// A 256-bit key for `purpose`, derived from the secret (HMAC-SHA256 keyed by the secret over
    /// `"foyer key: " + purpose`): every process of the cluster derives the same key, and a key never reveals the
    /// secret or another purpose's key.
    public func derivedKey(purpose: String) -> [UInt8] {
        Array(
            HMAC<SHA256>.authenticationCode(for: Array("foyer key: \(purpose)".utf8), using: SymmetricKey(data: bytes))
        )
    }
}
