/// Why `Base64URL.decode` refused its input.
///
/// Equality and hashing consider only the kind; ``detail`` carries context for logs and never the rejected text.
public struct Base64URLError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case invalidText
        case tooLong
    }

    private let code: Code

    /// Context for logs (the offending byte, the length). Not part of equality.
    public let detail: String

    private init(_ code: Code, _ detail: String) {
        self.code = code
        self.detail = detail
    }

    /// Text that is not unpadded base64url, or has an impossible length or non-zero trailing bits.
    public static let invalidText = Base64URLError(.invalidText, "")
    /// Text longer than the caller's cap; refused before any decoding work.
    public static let tooLong = Base64URLError(.tooLong, "")

    static func invalidText(_ detail: String) -> Self { Self(.invalidText, detail) }
    static func tooLong(_ detail: String) -> Self { Self(.tooLong, detail) }

    /// Whether the text was refused for its length rather than its content.
    public var isTooLong: Bool { code == .tooLong }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String {
        let kind =
            switch code {
            case .invalidText: "invalid base64url"
            case .tooLong: "base64url text too long"
            }
        return detail.isEmpty ? kind : "\(kind): \(detail)"
    }
}
