import Foundation
import FoyerCrypto

/// The key-encryption key (KEK) that seals identity's signing keys at rest: each key (an Ed25519 seed, SEC 1 or
/// PKCS #1 DER) is stored as AES-256-GCM `nonce ‖ ciphertext ‖ tag` with a fresh random nonce and the key's `kid` as
/// associated data, so a sealed key moved to another row does not open.
///
/// The KEK comes from a secret file (`--signing-key-encryption-key-file`): exactly 32 random bytes written in
/// standard base64 (RFC 4648 §4: `A`–`Z`, `a`–`z`, `0`–`9`, `+`, `/`, with `=` padding, so 44 characters), optionally
/// followed by one line feed, which is what `openssl rand -base64 32` writes. Anything else (base64url, spaces,
/// another length, a second line) is refused, so a truncated or mistyped file never becomes a weaker key.
public struct SigningKeyEncryptionKey: Sendable {
    /// The KEK's size in bytes.
    public static let byteCount = AES256GCM.keyByteCount
    /// The KEK file's length without its optional line feed.
    static let textCount = 44
    /// What the id hashes before the key, so that the id is of no use for anything else.
    private static let idLabel = Array("foyer identity signing-key encryption key id v1\u{0}".utf8)

    /// Names the KEK without revealing it: base64url of the first 8 bytes of SHA-256 over a fixed label and the
    /// key (11 characters). Stored in `identity_signing_keys.kek_id` beside every row it sealed.
    public let id: String
    private let bytes: [UInt8]

    /// A KEK from its 32 bytes.
    public init(bytes: [UInt8]) throws {
        guard bytes.count == Self.byteCount else {
            throw IdentityConfigurationError(
                "a signing-key encryption key is \(Self.byteCount) bytes, got \(bytes.count)"
            )
        }
        self.bytes = bytes
        id = Base64URL.encode(SHA256.hash(Self.idLabel + bytes).prefix(8))
    }

    /// A KEK from the text of its file (see the type's documentation for the one format accepted).
    public init(fileText: String) throws {
        var text = Substring(fileText)
        if text.hasSuffix("\n") { text = text.dropLast() }
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        let body = text.utf8.dropLast()
        guard text.utf8.count == Self.textCount else {
            throw Self.formatError("it holds \(text.utf8.count) characters besides a final line feed")
        }
        guard text.utf8.last == UInt8(ascii: "="), body.allSatisfy(alphabet.contains) else {
            throw Self.formatError("it holds characters outside that alphabet, or no = at the end")
        }
        guard let decoded = Data(base64Encoded: String(text)), decoded.count == Self.byteCount,
            decoded.base64EncodedString() == String(text)
        else {
            throw Self.formatError("it does not decode to 32 bytes")
        }
        try self.init(bytes: Array(decoded))
    }

    /// Reads a KEK file.
    public static func load(path: String) throws -> SigningKeyEncryptionKey {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw IdentityConfigurationError("cannot read the signing-key encryption key file \(path): \(error)")
        }
        do {
            return try SigningKeyEncryptionKey(fileText: text)
        } catch let error as IdentityConfigurationError {
            throw IdentityConfigurationError("\(path): \(error.description)")
        }
    }

    /// Seals a signing key's seed for the row of `keyID`: `nonce ‖ ciphertext ‖ tag`.
    func seal(_ seed: [UInt8], keyID: String) throws -> [UInt8] {
        try AES256GCM.seal(seed, key: bytes, associatedData: Array(keyID.utf8)).combined
    }

    /// Opens what ``seal(_:keyID:)`` stored for `keyID`.
    func open(_ sealed: [UInt8], keyID: String) throws -> [UInt8] {
        do {
            return try AES256GCM.open(
                AES256GCM.SealedBox(combined: sealed),
                key: bytes,
                associatedData: Array(keyID.utf8)
            )
        } catch {
            throw IdentityConfigurationError(
                "the signing key \(keyID) does not open with the key-encryption key \(id) that its row names: the row was changed (\(error))"
            )
        }
    }

    /// Seals other secrets identity keeps (Apple refresh tokens) the same way: `nonce ‖ ciphertext ‖ tag`, bound to
    /// `associatedData`, which must name the row (and what the secret is) so that it opens nowhere else.
    func seal(_ secret: [UInt8], associatedData: [UInt8]) throws -> [UInt8] {
        try AES256GCM.seal(secret, key: bytes, associatedData: associatedData).combined
    }

    /// Opens what ``seal(_:associatedData:)`` sealed with the same associated data; throws if anything differs.
    func open(_ sealed: [UInt8], associatedData: [UInt8]) throws -> [UInt8] {
        try AES256GCM.open(AES256GCM.SealedBox(combined: sealed), key: bytes, associatedData: associatedData)
    }

    private static func formatError(_ problem: String) -> IdentityConfigurationError {
        IdentityConfigurationError(
            """
            a signing-key encryption key file holds 32 random bytes in standard base64 (A-Z, a-z, 0-9, + and /, \
            with = padding: 44 characters), optionally followed by one line feed, as `openssl rand -base64 32` \
            writes; \(problem)
            """
        )
    }
}
