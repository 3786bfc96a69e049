import CoreMetrics

/// identity's domain counters, through the process's `MetricsSystem` (a no-op unless the executable bootstrapped
/// it):
///
/// | metric | type | labels |
/// |---|---|---|
/// | `foyer_identity_signups_total` | counter | `kind`: `guest` (a new guest, not an idempotent replay), `member` (a new permanent account, or a guest made permanent) |
///
/// A member is counted when its row is written, inside the transaction: one rolled back afterwards still counts.
enum IdentityMetrics {
    enum SignUpKind: String {
        case guest
        case member
    }

    static func signedUp(_ kind: SignUpKind) {
        Counter(label: "foyer_identity_signups_total", dimensions: [("kind", kind.rawValue)]).increment()
    }
}
