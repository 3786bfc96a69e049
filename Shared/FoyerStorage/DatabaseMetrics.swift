import CoreMetrics

/// What ``FoyerDatabase`` records about its transactions, through the process's `MetricsSystem` (a no-op unless
/// the executable bootstrapped it):
///
/// | metric | type | labels |
/// |---|---|---|
/// | `foyer_db_transaction_duration_seconds` | histogram | `engine` (`sqlite`, `postgres`), `outcome` (`commit`, `rollback`) |
/// | `foyer_db_pool_wait_seconds` | histogram | `engine` |
/// | `foyer_db_commit_batch_transactions` | histogram | — (SQLite only) |
///
/// A transaction's duration runs from BEGIN to COMMIT or ROLLBACK; the pool wait, from asking for the writer (SQLite)
/// or a pooled connection (PostgreSQL) until it is handed over.
struct DatabaseMetrics: Sendable {
    let engine: DatabaseEngineKind

    /// A transaction that began at `started` has ended.
    func transacted(since started: ContinuousClock.Instant, committed: Bool) {
        Timer(
            label: "foyer_db_transaction_duration_seconds",
            dimensions: [("engine", engine.rawValue), ("outcome", committed ? "commit" : "rollback")]
        ).recordNanoseconds(Self.nanoseconds(ContinuousClock.now - started))
    }

    /// A connection asked for at `requested` has been handed over.
    func waited(since requested: ContinuousClock.Instant) {
        Timer(label: "foyer_db_pool_wait_seconds", dimensions: [("engine", engine.rawValue)])
            .recordNanoseconds(Self.nanoseconds(ContinuousClock.now - requested))
    }

    /// A SQLite batch of `transactions` transactions has committed (group commit).
    static func committedBatch(of transactions: Int) {
        Recorder(label: "foyer_db_commit_batch_transactions", aggregate: true).record(transactions)
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds.multipliedReportingOverflow(by: 1_000_000_000).overflow
            ? .max : seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
