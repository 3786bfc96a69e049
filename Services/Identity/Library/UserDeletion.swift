import Foundation
import FoyerStorage
import SQLKit

/// Removes every row identity holds about a user, on the transaction's connection: sessions and their refresh
/// tokens, the email credential (and its failed-attempt count, email links and outbox messages), provider
/// identities, guest idempotency keys, used nonces, conflict tickets on either side, and the user. Only the
/// operation id that did it is kept (`identity_finished_operations`), without the uid.
enum UserDeletion {
    static func deleteEverything(_ sql: any SQLDatabase, uid: String) async throws {
        try await deleteEverything(sql, uids: [uid])
    }

    /// `deleteEverything` for several users at once: one statement per table, whatever their number.
    static func deleteEverything(_ sql: any SQLDatabase, uids: [String]) async throws {
        guard !uids.isEmpty else { return }
        let emails = try await sql.raw("SELECT email FROM identity_emails WHERE uid IN (\(binds: uids))")
            .all(decodingColumn: "email", as: String.self)
        try await sql.raw(
            """
            DELETE FROM identity_refresh_tokens
            WHERE session_id IN (SELECT id FROM identity_sessions WHERE uid IN (\(binds: uids)))
            """
        ).run()
        for table in [
            "identity_sessions", "identity_emails", "identity_provider_links", "identity_guest_keys",
            "identity_used_nonces", "identity_email_links",
        ] {
            try await sql.raw("DELETE FROM \(ident: table) WHERE uid IN (\(binds: uids))").run()
        }
        try await sql.raw(
            """
            DELETE FROM identity_conflict_tickets
            WHERE holder_uid IN (\(binds: uids)) OR account_uid IN (\(binds: uids))
            """
        ).run()
        if !emails.isEmpty {
            let hashes = emails.compactMap { EmailAddress($0) }.map { SQLBytes(LoginThrottle.emailHash($0)) }
            try await sql.raw("DELETE FROM identity_email_links WHERE email IN (\(binds: emails))").run()
            try await sql.raw("DELETE FROM identity_outbox WHERE recipient IN (\(binds: emails))").run()
            if !hashes.isEmpty {
                try await sql.raw("DELETE FROM identity_login_failures WHERE email_hash IN (\(SQLList(hashes)))").run()
            }
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

    static func isFinished(_ sql: any SQLDatabase, kind: String, operationID: String) async throws -> Bool {
        try await sql.raw(
            """
            SELECT 1 AS one FROM identity_finished_operations
            WHERE kind = \(bind: kind) AND operation_id = \(bind: operationID)
            """
        ).first() != nil
    }
}
