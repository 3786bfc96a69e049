import CoreMetrics

/// identity's domain counters, through the process's `MetricsSystem` (a no-op unless the executable bootstrapped
/// it):
///
/// | metric | type | labels |
/// |---|---|---|
/// | `foyer_identity_signups_total` | counter | `kind`: `guest` (a new guest, not an idempotent replay), `member` (a new permanent account, or a guest made permanent) |
/// | `foyer_identity_webhook_attempts_total` | counter | `outcome`: `delivered`, `retrying` (to be sent again), `failed` (attempts exhausted, kept for a replay) |
/// | `foyer_identity_events_pending` | gauge | events not yet delivered, across the replicas sharing the database |
/// | `foyer_identity_events_oldest_pending_seconds` | gauge | the age of the oldest of them (0 when none) |
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

    enum WebhookOutcome: String {
        case delivered
        case retrying
        case failed
    }

    static func webhookAttempt(_ outcome: WebhookOutcome) {
        Counter(label: "foyer_identity_webhook_attempts_total", dimensions: [("outcome", outcome.rawValue)])
            .increment()
    }

    /// The backlog as the deliverer last measured it.
    static func eventBacklog(pending: Int64, oldestAge: Duration) {
        Meter(label: "foyer_identity_events_pending").set(Double(pending))
        Meter(label: "foyer_identity_events_oldest_pending_seconds").set(oldestAge.timeInterval)
    }
}
