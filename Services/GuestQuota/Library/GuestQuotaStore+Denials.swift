import Foundation
import FoyerAPI
import FoyerStorage
import SQLKit

/// Denials counted for the whole cluster: every refused consume (kind: the counter) and refused sign-up admission
/// (kind `signup`) is tallied in memory (``DenialTally``), flushed into `guest_quota_denials` by an upsert per
/// (minute, kind) every `denialFlushInterval`, and summed over the last hour by `stats`. No denial writes to the
/// database on its own path.
extension GuestQuotaStore {
    /// The kind of a refused sign-up admission (`signup-rate-limited`, `guest-cap-reached`).
    static let signupDenialKind = "signup"
    /// How far back `stats` sums denials.
    static let denialWindow: TimeInterval = 3600
    /// How long a minute's row is kept before pruning.
    static let denialRetention: TimeInterval = 24 * 3600
    /// Most kinds read back from the table for one `stats` answer.
    private static let denialKindsReadMax = 1000

    /// Runs `body`; a refusal whose code is one of `codes` is counted as a denial of `kind`, then rethrown.
    func countingDenials<T>(
        as kind: String,
        _ codes: Set<GuestQuotaError.Code>,
        _ body: () async throws -> T
    ) async throws -> T {
        do {
            return try await body()
        } catch let error as GuestQuotaError where codes.contains(error.code) {
            denials.record(kind: kind, at: configuration.now())
            throw error
        }
    }

    /// Adds the tallies held in memory to `guest_quota_denials`, in one transaction (rows in key order, so that
    /// replicas flushing the same minutes lock them in the same order). On failure the tallies are kept for the
    /// next flush. Returns how many (minute, kind) rows were written.
    @discardableResult
    func flushDenials() async throws -> Int {
        try await denialGate.acquire()
        defer { denialGate.release() }
        let dropped = denials.takeDropped()
        if dropped > 0 {
            logger.warning(
                "denial tallies full; denials dropped from the statistics",
                metadata: ["denials.dropped": "\(dropped)"]
            )
        }
        let tallies = denials.take()
        guard !tallies.isEmpty else { return 0 }
        do {
            try await write { sql in
                for (key, count) in tallies.sorted(by: { $0.key < $1.key }) {
                    try await sql.raw(
                        """
                        INSERT INTO guest_quota_denials (minute_start, kind, count)
                        VALUES (\(bind: key.minuteStart), \(bind: key.kind), \(bind: Int64(clamping: count)))
                        ON CONFLICT (minute_start, kind) DO UPDATE
                        SET count = guest_quota_denials.count + excluded.count
                        """
                    ).run()
                }
            }
        } catch {
            denials.add(tallies)
            throw error
        }
        return tallies.count
    }

    /// The denials of the last hour: the table's rows (every replica's flushed tallies) plus this process's
    /// unflushed ones; total and the largest kinds. Reads under the flush's gate, so a flush under way is counted
    /// once.
    func denialStats() async throws -> (total: UInt64, byKind: [DenialCount]) {
        let windowStart = configuration.now().addingTimeInterval(-Self.denialWindow).databaseMicroseconds
        try await denialGate.acquire()
        defer { denialGate.release() }
        var byKind = try await database.withConnection { sql in
            try await storedDenials(sql, since: windowStart)
        }
        var total = byKind.values.reduce(0, &+)
        for (kind, count) in denials.counts(since: windowStart) {
            byKind[kind, default: 0] &+= count
            total &+= count
        }
        let largest = byKind.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
            .prefix(GuestQuotaLimits.denialKindsMax)
            .map { DenialCount(kind: $0.key, count: $0.value) }
        return (total, Array(largest))
    }

    /// The table's denials per kind in the minutes starting at or after `since` (at most `denialKindsReadMax`
    /// kinds, the largest).
    private func storedDenials(_ sql: any SQLDatabase, since: Int64) async throws -> [String: UInt64] {
        let rows = try await sql.raw(
            """
            SELECT kind, CAST(SUM(count) AS BIGINT) AS total FROM guest_quota_denials
            WHERE minute_start >= \(bind: since)
            GROUP BY kind ORDER BY total DESC LIMIT \(literal: Self.denialKindsReadMax)
            """
        ).all()
        var counts: [String: UInt64] = [:]
        for row in rows {
            let total = try row.decode(column: "total", as: Int64.self)
            counts[try row.decode(column: "kind", as: String.self)] = UInt64(max(0, total))
        }
        return counts
    }

    /// Deletes, oldest first and at most `limit`, the rows of minutes that started more than `denialRetention`
    /// before `now`. Returns how many went.
    func pruneDenials(_ sql: any SQLDatabase, now: Date, limit: Int) async throws -> Int {
        let before = now.addingTimeInterval(-Self.denialRetention).databaseMicroseconds
        return try await sql.raw(
            """
            DELETE FROM guest_quota_denials WHERE (minute_start, kind) IN (
                SELECT minute_start, kind FROM guest_quota_denials WHERE minute_start < \(bind: before)
                ORDER BY minute_start LIMIT \(literal: limit))
            RETURNING kind
            """
        ).all().count
    }
}
