import Foundation
import FoyerStorage
import SQLKit

/// Removes every row identity holds about a user, on the transaction's connection: sessions and their refresh
/// tokens, the email credential (and its failed-attempt count, email links, and the outbox messages to it and to
/// any address a link email was sent for the user), provider identities, guest idempotency keys, conflict
/// tickets on either side, device keys, Sign in with Apple tokens (revoked at Apple by the saga's step before), and the user
/// (used ID-token marks lose their uid). Only the operation id that did it is kept
/// (`identity_finished_operations`), without the uid.
enum UserDeletion {
    static func deleteEverything(_ sql: any SQLDatabase, uid: String) async throws {
        try await deleteEverything(sql, uids: [uid])
    }

    /// `deleteEverything` for several users at once: one statement per table, whatever their number.
    static func deleteEverything(_ sql: any SQLDatabase, uids: [String]) async throws {
        guard !uids.isEmpty else { return }
        let emails = try await sql.raw("SELECT email FROM identity_emails WHERE uid IN (\(binds: uids))")
            .all(decodingColumn: "email", as: String.self)
        // Link emails sent for the user to an address it never proved left outbox messages too.
        let linkAddresses = try await sql.raw(
            "SELECT DISTINCT email FROM identity_email_links WHERE uid IN (\(binds: uids))"
        ).all(decodingColumn: "email", as: String.self)
        let recipients = Array(Set(emails + linkAddresses)).sorted()
        try await sql.raw(
            """
            DELETE FROM identity_refresh_tokens
            WHERE session_id IN (SELECT id FROM identity_sessions WHERE uid IN (\(binds: uids)))
            """
        ).run()
        for table in [
            "identity_sessions", "identity_emails", "identity_provider_links", "identity_guest_keys",
            "identity_email_links", "identity_device_keys",
            // Revoked at Apple by the saga's `revokeAppleTokens` step before this one; whatever is left goes too.
            "identity_apple_tokens",
        ] {
            try await sql.raw("DELETE FROM \(ident: table) WHERE uid IN (\(binds: uids))").run()
        }
        // Used ID tokens stay marked, without the uid (a bare hash until the token expires), so a token used before
        // cannot sign up again once the account is gone.
        try await sql.raw("UPDATE identity_used_nonces SET uid = NULL WHERE uid IN (\(binds: uids))").run()
        try await sql.raw(
            """
            DELETE FROM identity_conflict_tickets
            WHERE holder_uid IN (\(binds: uids)) OR account_uid IN (\(binds: uids))
            """
        ).run()
        if !emails.isEmpty {
            let hashes = emails.compactMap { EmailAddress($0) }.map { SQLBytes(LoginThrottle.emailHash($0)) }
            try await sql.raw("DELETE FROM identity_email_links WHERE email IN (\(binds: emails))").run()
            if !hashes.isEmpty {
                // The address's own count, and its counts per client source (which carry it as `address_hash`).
                try await sql.raw(
                    """
                    DELETE FROM identity_login_failures
                    WHERE email_hash IN (\(SQLList(hashes))) OR address_hash IN (\(SQLList(hashes)))
                    """
                ).run()
            }
        }
        if !recipients.isEmpty {
            try await sql.raw("DELETE FROM identity_outbox WHERE recipient IN (\(binds: recipients))").run()
        }
        try await sql.raw("DELETE FROM identity_users WHERE uid IN (\(binds: uids))").run()
    }

    /// Records that an operation finished, so that repeating it answers success.
    static func recordFinished(_ sql: any SQLDatabase, kind: String, operationID: String, now: Date) async throws {
        try await sql.raw(
            """
            INSERT INTO identity_finished_operations (kind, operation_id, finished_at)
            VALUES (\(bind: kind), \(bind: operationID), \(SQLTimestamp(now)))
            ON CONFLICT DO NOTHING
            """
        ).run()
    }

    /// How long a finished operation is remembered. Its repeats come from a client's retry, which needs the
    /// user's access token (valid 15 minutes by default), or from cleanup's recovery within its grace; after this,
    /// a repeat answers `user-not-found`, which both take as done. The ids are hashes (the gateway's scoped ids,
    /// cleanup's `ttl-` ids), but they are one per deleted user, so they go too.
    static let finishedOperationRetention: Duration = .seconds(7 * 86_400)

    /// Forgets up to `limit` finished operations recorded before `cutoff`.
    static func pruneFinished(_ sql: any SQLDatabase, before cutoff: Date, limit: Int) async throws {
        try await sql.raw(
            """
            DELETE FROM identity_finished_operations WHERE (kind, operation_id) IN (
                SELECT kind, operation_id FROM identity_finished_operations
                WHERE finished_at < \(SQLTimestamp(cutoff)) LIMIT \(bind: limit))
            """
        ).run()
    }

    static func isFinished(_ sql: any SQLDatabase, kind: String, operationID: String) async throws -> Bool {
        try await sql.raw(
            """
            SELECT 1 AS one FROM identity_finished_operations
            WHERE kind = \(bind: kind) AND operation_id = \(bind: operationID)
            """
        ).first() != nil
    }
}
