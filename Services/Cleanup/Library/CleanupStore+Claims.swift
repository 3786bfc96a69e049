import Foundation
import FoyerStorage
import SQLKit

/// Claims: how replicas sharing one database split the work. Before a replica deletes or finishes an account it
/// inserts a claim row for the account's pseudonymous id; only the replica whose insert lands works on it, the
/// others skip it. The claim is removed when the work is done (or failed). A claim older than the claim lifetime
/// belongs to a replica that died mid-account and may be taken over (the steps are idempotent, so finishing
/// another replica's work is safe). A replica renews its claims while it works, so the lifetime can be short: it
/// bounds how long a dead replica's accounts wait, not how long one account may take.
extension CleanupStore {
    /// Claims `subject` for `replica`: true if this replica may work on it now.
    func claim(subject: String, replica: String, now: Date, staleBefore: Date) async throws -> Bool {
        try await claim(subjects: [subject], replica: replica, now: now, staleBefore: staleBefore) == [subject]
    }

    /// Claims each of `subjects` for `replica` in one transaction; answers those this replica may work on now.
    func claim(subjects: [String], replica: String, now: Date, staleBefore: Date) async throws -> Set<String> {
        try await database.transaction { sql in
            var won: Set<String> = []
            for subject in subjects {
                let row = try await sql.raw(
                    """
                    INSERT INTO cleanup_claims (subject, replica, claimed_at)
                    VALUES (\(bind: subject), \(bind: replica), \(SQLTimestamp(now)))
                    ON CONFLICT (subject) DO UPDATE SET replica = excluded.replica, claimed_at = excluded.claimed_at
                    WHERE cleanup_claims.claimed_at < \(SQLTimestamp(staleBefore))
                    RETURNING subject
                    """
                ).first()
                if row != nil { won.insert(subject) }
            }
            return won
        }
    }

    /// Renews `replica`'s claims on `subjects` (those another replica has taken over stay theirs).
    func renew(subjects: [String], replica: String, now: Date) async throws {
        guard !subjects.isEmpty else { return }
        try await database.transaction { sql in
            try await sql.raw(
                """
                UPDATE cleanup_claims SET claimed_at = \(SQLTimestamp(now))
                WHERE subject IN (\(binds: subjects)) AND replica = \(bind: replica)
                """
            ).run()
        }
    }

    /// Gives up `replica`'s claim on `subject` (a claim another replica has taken over stays).
    func release(subject: String, replica: String) async throws {
        try await release(subjects: [subject], replica: replica)
    }

    /// Gives up `replica`'s claims on `subjects` in one statement.
    func release(subjects: [String], replica: String) async throws {
        guard !subjects.isEmpty else { return }
        try await database.transaction { sql in
            try await sql.raw(
                "DELETE FROM cleanup_claims WHERE subject IN (\(binds: subjects)) AND replica = \(bind: replica)"
            ).run()
        }
    }

    /// Removes up to `limit` claims from before `cutoff` (left by replicas that died); returns how many.
    func purgeClaims(before cutoff: Date, limit: Int) async throws -> Int {
        try await database.transaction { sql in
            try await sql.raw(
                """
                DELETE FROM cleanup_claims WHERE subject IN (
                    SELECT subject FROM cleanup_claims WHERE claimed_at < \(SQLTimestamp(cutoff)) LIMIT \(bind: limit))
                RETURNING subject
                """
            ).all().count
        }
    }
}
