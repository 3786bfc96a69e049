import CoreMetrics

/// guest-quota's domain counters, through the process's `MetricsSystem` (a no-op unless the executable bootstrapped
/// it):
///
/// | metric | type | labels |
/// |---|---|---|
/// | `foyer_guest_quota_denials_total` | counter | `counter`: the plan counter that refused a consume (`documents`, ...) |
///
/// Counter names come from the plans file, so the label takes as many values as the plans define counters.
enum GuestQuotaMetrics {
    /// A consume on `counter` was refused `quota-exceeded`.
    static func denied(counter: String) {
        Counter(label: "foyer_guest_quota_denials_total", dimensions: [("counter", counter)]).increment()
    }
}
