import CoreMetrics

/// guest-quota's domain counters, through the process's `MetricsSystem` (a no-op unless the executable bootstrapped
/// it):
///
/// | metric | type | labels |
/// |---|---|---|
/// | `foyer_guest_quota_denials_total` | counter | `counter`: the plan counter that refused a consume (`documents`, ...) |
/// | `foyer_guest_quota_live_guests` | gauge | none: live guests as this replica last read them (at sign-up admission and `stats`) |
/// | `foyer_guest_quota_live_guests_max` | gauge | none: the live-guest cap (`liveGuestsMax`) |
/// | `foyer_guest_quota_live_guests_ratio` | gauge | none: live guests over the cap (1 when the cap is 0) |
///
/// Counter names come from the plans file, so the label takes as many values as the plans define counters.
enum GuestQuotaMetrics {
    /// A consume on `counter` was refused `quota-exceeded`.
    static func denied(counter: String) {
        Counter(label: "foyer_guest_quota_denials_total", dimensions: [("counter", counter)]).increment()
    }

    /// The number of live guests read from the census, against the cap.
    static func liveGuests(_ live: Int64, of cap: Int) {
        Gauge(label: "foyer_guest_quota_live_guests").record(live)
        Gauge(label: "foyer_guest_quota_live_guests_max").record(cap)
        Gauge(label: "foyer_guest_quota_live_guests_ratio").record(cap > 0 ? Double(live) / Double(cap) : 1)
    }
}
