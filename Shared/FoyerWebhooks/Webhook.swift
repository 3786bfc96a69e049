public import Foundation

/// What every signed HTTP call of Foyer's services to an app shares (identity's events, the mail webhook, the merge
/// and delete hooks): where it may go and the keys it is signed with.
public enum Webhook {
    /// The most signing keys: two while an app moves from one secret to the next (both sign).
    public static let secretsMax = 2

    /// An endpoint from its text: an https URL, or http to 127.0.0.1, ::1 or localhost (a receiver on the same
    /// machine, or a test's).
    public static func endpoint(_ text: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host,
            !host.isEmpty
        else {
            throw WebhookError("the webhook endpoint '\(text)' is not an absolute URL")
        }
        switch scheme {
        case "https": return url
        case "http" where ["127.0.0.1", "::1", "[::1]", "localhost"].contains(host.lowercased()): return url
        case "http": throw WebhookError("the webhook endpoint \(text) must be https (http only to loopback)")
        default: throw WebhookError("the webhook endpoint \(text) must be https")
        }
    }

    /// The signing keys of a secret file's text: one `whsec_<base64>` per line (blank lines ignored), 1–2 of them,
    /// each of 24–64 bytes.
    public static func secrets(fromFileText text: String) throws -> [[UInt8]] {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        guard (1...secretsMax).contains(lines.count) else {
            throw WebhookError("the webhook secret file holds 1-\(secretsMax) secrets, not \(lines.count)")
        }
        return try lines.map { line in
            guard line.hasPrefix("whsec_"), let key = Data(base64Encoded: String(line.dropFirst(6))),
                (24...64).contains(key.count)
            else {
                throw WebhookError("a webhook secret is whsec_ and the base64 of 24-64 random bytes")
            }
            return Array(key)
        }
    }
}

/// A webhook endpoint or secret that cannot be used.
public struct WebhookError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
