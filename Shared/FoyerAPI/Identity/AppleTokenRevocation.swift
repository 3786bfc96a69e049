public import FoyerWire
public import NIOCore

/// One user's answer of `revokeAppleTokens`: what became of the Sign in with Apple refresh token identity kept for
/// the user.
///
/// ```
/// u8 outcome   0 none: identity kept no Apple token for the user (no code was given at sign-in or link, or the
///                      token was revoked by an earlier call under the same deletion)
///              1 revoked: Apple accepted the revocation (or answered that the token was already invalid) and the
///                         row is gone
///              2 notObtained: a code was given but its exchange failed, so there was no token to revoke; the
///                             record of that is gone
/// ```
public struct AppleTokenRevocation: WireMessage, Hashable {
    /// What became of the user's Apple token. Encoded as `u8`.
    public enum Outcome: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        case none = 0
        case revoked = 1
        case notObtained = 2

        public var description: String {
            switch self {
            case .none: "none"
            case .revoked: "revoked"
            case .notObtained: "not-obtained"
            }
        }
    }

    public var outcome: Outcome

    public init(outcome: Outcome) {
        self.outcome = outcome
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        outcome = try buffer.readEnum(Outcome.self, "appleTokenRevocation.outcome")
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeInteger(outcome.rawValue)
    }
}
