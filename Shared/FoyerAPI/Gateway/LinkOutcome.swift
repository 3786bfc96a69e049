/// How a `link` or `resolveConflict` ended (`u8`).
public enum LinkOutcome: UInt8, Sendable, CaseIterable {
    /// The credential was new: the caller's account now has it (a guest became a member, same uid).
    case linked = 0
    /// The credential was another account's: its session is returned and the guest's data was merged into it.
    case merged = 1
    /// The credential was another account's: its session is returned and the guest was deleted with its data.
    case discarded = 2
    /// The credential was another account's and the caller chose `fail`: nothing changed; the answer names the
    /// account and carries a ticket for `resolveConflict`.
    case conflict = 3
}
