import Foundation
import FoyerStorage
import SQLKit

extension DocumentStore {
    /// `putOnce` calls between two occasional prunings.
    static let maintenanceInterval: UInt64 = 64
    /// Rows of each kind an occasional pruning removes (more than the calls between two, so it keeps up).
    static let maintenanceBatch = 128

    /// Removes, oldest first and at most `limit` of each kind, every record past its retention, each kind in a
    /// transaction of its own:
    /// - tombstones of deleted uids older than `deletionTombstoneLifetime` (the uid could take writes again, but
    ///   no token or call of it can still be around);
    /// - merge op rows, with their conflict lists, `mergeRecordRetention` after the merge finished (or, if it never
    ///   did, started): past cleanup's recovery and any retry of the merge;
    /// - put records older than `putRecordRetention`.
    ///
    /// - Returns: the rows removed, all kinds together.
    func prune(limit: Int) async throws -> Int {
        let now = configuration.now()
        let tombstonesBefore = SQLTimestamp(
            now.addingTimeInterval(-configuration.deletionTombstoneLifetime.timeInterval)
        )
        let mergesBefore = SQLTimestamp(now.addingTimeInterval(-configuration.mergeRecordRetention.timeInterval))
        let putsBefore = SQLTimestamp(now.addingTimeInterval(-configuration.putRecordRetention.timeInterval))
        let tombstones = try await write { sql in
            try await sql.raw(
                """
                DELETE FROM ud_deleted_uids WHERE uid IN (
                    SELECT uid FROM ud_deleted_uids WHERE deleted_at < \(tombstonesBefore)
                    ORDER BY deleted_at LIMIT \(literal: limit))
                RETURNING uid
                """
            ).all().count
        }
        let merges = try await write { sql in
            // finished_at >= started_at, so the index on started_at narrows the scan.
            let ops = try await sql.raw(
                """
                SELECT op FROM ud_merge_ops
                WHERE started_at < \(mergesBefore) AND COALESCE(finished_at, started_at) < \(mergesBefore)
                ORDER BY started_at LIMIT \(literal: limit)
                """
            ).all(decodingColumn: "op", as: String.self)
            guard !ops.isEmpty else { return 0 }
            try await sql.raw("DELETE FROM ud_merge_conflicts WHERE op IN (\(binds: ops))").run()
            try await sql.raw("DELETE FROM ud_merge_ops WHERE op IN (\(binds: ops))").run()
            return ops.count
        }
        let puts = try await write { sql in
            try await sql.raw(
                """
                DELETE FROM ud_put_ops WHERE (uid, op) IN (
                    SELECT uid, op FROM ud_put_ops WHERE recorded_at < \(putsBefore)
                    ORDER BY recorded_at LIMIT \(literal: limit))
                RETURNING op
                """
            ).all().count
        }
        let removed = tombstones + merges + puts
        if removed > 0 {
            logger.debug(
                "pruned expired records",
                metadata: [
                    "pruned.tombstones": "\(tombstones)", "pruned.merges": "\(merges)", "pruned.puts": "\(puts)",
                ]
            )
        }
        return removed
    }

    /// Every `maintenanceInterval` `putOnce` calls, prunes a few expired records (put records come at the rate of
    /// writes, faster than cleanup's sweeps ask); a failure is logged, never reported to the caller.
    func maintainOccasionally() async {
        let count = calls.wrappingAdd(1, ordering: .relaxed).newValue
        guard count % Self.maintenanceInterval == 0 else { return }
        do {
            _ = try await prune(limit: Self.maintenanceBatch)
        } catch {
            logger.warning("pruning expired records failed", metadata: ["error": "\(String(reflecting: error))"])
        }
    }
}

extension Duration {
    /// The duration in seconds, as a `TimeInterval`.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
