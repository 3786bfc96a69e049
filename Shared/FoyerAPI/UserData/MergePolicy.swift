/// How a merge resolves a key that both the guest and the account hold (`u8` on the wire; other values are
/// refused `invalid-argument`).
public enum MergePolicy: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `keep-account` (0): the account's document stays; the guest's is dropped.
    case keepAccount = 0
    /// `keep-guest` (1): the guest's value replaces the account's (the account's version + 1).
    case keepGuest = 1
    /// `keep-newest` (2): the one written last wins; on a tie, the account's.
    case keepNewest = 2
    /// `keep-both` (3): the account's stays; the guest's moves to a derived key in the same collection
    /// (`<key>~guest-<8 hex digits>`, the key cut to fit 256 bytes).
    case keepBoth = 3

    public var description: String {
        switch self {
        case .keepAccount: "keep-account"
        case .keepGuest: "keep-guest"
        case .keepNewest: "keep-newest"
        case .keepBoth: "keep-both"
        }
    }
}
