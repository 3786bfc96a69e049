import Foundation
import FoyerAPI
import FoyerStorage
import SQLKit

extension CleanupStore {
    /// Records a deletion once per (operation, account): recording it again changes nothing (the first time and
    /// reason stay). Returns whether a row was added.
    @discardableResult
    func recordDeletion(
        subject: String,
        operationKey: String,
        reason: DeletionReason,
        at time: Date
    ) async throws
        -> Bool
    {
        try await recordDeletions([(subject: subject, operationKey: operationKey)], reason: reason, at: time) == 1
    }

    /// `recordDeletion` of several accounts in one transaction; returns how many rows were added.
    @discardableResult
    func recordDeletions(
        _ deletions: [(subject: String, operationKey: String)],
        reason: DeletionReason,
        at time: Date
    ) async throws -> Int {
        try await database.transaction { sql in
            var added = 0
            for deletion in deletions {
                let row = try await sql.raw(
                    """
                    INSERT INTO cleanup_deletions (operation_key, subject, reason, deleted_at)
                    VALUES (\(bind: deletion.operationKey), \(bind: deletion.subject), \(bind: Int64(reason.rawValue)),
                            \(SQLTimestamp(time)))
                    ON CONFLICT (operation_key, subject) DO NOTHING
                    RETURNING subject
                    """
                ).first()
                if row != nil { added += 1 }
            }
            return added
        }
    }

    /// The newest `limit` records, newest first.
    func deletions(limit: Int) async throws -> [DeletionRecords.Record] {
        try await database.withConnection { sql in
            try await sql.raw(
                """
                SELECT subject, reason, deleted_at FROM cleanup_deletions
                ORDER BY deleted_at DESC, subject LIMIT \(bind: limit)
                """
            ).all().map { row in
                let reason = try row.decode(column: "reason", as: Int64.self)
                return DeletionRecords.Record(
                    pseudonymousID: try row.decode(column: "subject", as: String.self),
                    reason: DeletionReason(rawValue: UInt8(clamping: reason)) ?? .userRequest,
                    deletedAtMilliseconds: UInt64(max(0, try row.decode(column: "deleted_at", as: Int64.self) / 1000))
                )
            }
        }
    }

    /// Removes up to `limit` records from before `cutoff`, oldest first; returns how many.
    func purgeDeletions(before cutoff: Date, limit: Int) async throws -> Int {
        try await database.transaction { sql in
            try await sql.raw(
                """
                DELETE FROM cleanup_deletions WHERE (operation_key, subject) IN (
                    SELECT operation_key, subject FROM cleanup_deletions WHERE deleted_at < \(SQLTimestamp(cutoff))
                    ORDER BY deleted_at LIMIT \(bind: limit))
                RETURNING subject
                """
            ).all().count
        }
    }
}
