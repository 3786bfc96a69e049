import CoreMetrics
import FoyerAPI

/// cleanup's domain metrics, through the process's `MetricsSystem` (a no-op unless the executable bootstrapped it):
///
/// | metric | type | labels |
/// |---|---|---|
/// | `foyer_cleanup_sweeps_total` | counter | `outcome`: `ok`, or `errors` when the sweep counted a failure |
/// | `foyer_cleanup_deletions_total` | counter | `kind`: `expired_guest` (deleted for inactivity), `stuck_finished` (an interrupted merge or deletion finished) |
/// | `foyer_cleanup_records_purged_total` | counter | none |
/// | `foyer_cleanup_deleted_guest_age_seconds` | histogram | none: an expired guest's time from its last activity to its deletion |
/// | `foyer_cleanup_oldest_stuck_account_seconds` | gauge | none: how long the longest-stuck merge or deletion past the grace has waited, as the last sweep found it (0: none) |
///
/// Dry runs record nothing.
enum CleanupMetrics {
    /// A sweep (not a dry run) ended with `report`.
    static func swept(_ report: SweepReport) {
        Counter(label: "foyer_cleanup_sweeps_total", dimensions: [("outcome", report.errors == 0 ? "ok" : "errors")])
            .increment()
        Counter(label: "foyer_cleanup_deletions_total", dimensions: [("kind", "expired_guest")])
            .increment(by: report.expiredGuests)
        Counter(label: "foyer_cleanup_deletions_total", dimensions: [("kind", "stuck_finished")])
            .increment(by: report.stuckFinished)
        Counter(label: "foyer_cleanup_records_purged_total").increment(by: report.recordsPurged)
    }

    /// The longest-stuck account a sweep found past the grace has been `merging` or `deleting` for `seconds` (0 when
    /// none was): alert on it staying above a few sweep intervals, which means recovery keeps failing.
    static func oldestStuckAccount(seconds: Double) {
        Gauge(label: "foyer_cleanup_oldest_stuck_account_seconds").record(max(0, seconds))
    }

    /// How many merges and deletions the last sweep found waiting longer than the app hooks' deadline (a day without
    /// hooks), among the longest-waiting page: alert on any.
    static func overdueOperations(_ count: Int) {
        Gauge(label: "foyer_cleanup_overdue_operations").record(count)
    }

    /// An expired guest was deleted `idleSeconds` after its last activity.
    static func deletedGuest(idleSeconds: Double) {
        Recorder(label: "foyer_cleanup_deleted_guest_age_seconds").record(max(0, idleSeconds))
    }
}
