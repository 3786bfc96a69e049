/// A credential of a permanent account, as `unlinkCredential` names it. Encoded as `u8`.
public enum CredentialKind: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The email credential: the address with its password, if it has one (email links sign in with it too).
    case email = 0
    /// The Sign in with Apple identity.
    case apple = 1
    /// The Google identity.
    case google = 2

    public var description: String {
        switch self {
        case .email: "email"
        case .apple: "apple"
        case .google: "google"
        }
    }

    /// The kind named `name` (`email`, `apple`, `google`), or nil.
    public init?(name: String) {
        guard let kind = Self.allCases.first(where: { $0.description == name }) else { return nil }
        self = kind
    }
}
