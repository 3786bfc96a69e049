import Foundation
import FoyerAPI
import FoyerStorage
import SQLKit

/// SQL on `identity_admin_actions`, the audit log of the admin API. Rows hold key ids, action names, uids and
/// status names: never an email, a key or a token.
enum AdminActionRecords {
    /// How long an entry is kept before maintenance removes it.
    static let retention = Duration.seconds(400 * 86_400)

    /// Writes an entry begun now and returns its id.
    static func insert(
        _ sql: any SQLDatabase,
        start: AdminActionStart,
        keyName: String,
        now: Date
    ) async throws -> UInt64 {
        let row = try await sql.raw(
            """
            INSERT INTO identity_admin_actions (at, key_id, key_name, action, target)
            VALUES (\(SQLTimestamp(now.atWirePrecision)), \(bind: start.keyID), \(bind: keyName),
                \(bind: start.action), \(bind: start.target))
            RETURNING id
            """
        ).first()
        guard let id = try row?.decode(column: "id", as: Int64.self), id > 0 else {
            throw IdentityStoreError("the audit entry got no id")
        }
        return UInt64(id)
    }

    /// Records the outcome unless one is recorded already. Returns false when there is no such entry.
    static func end(_ sql: any SQLDatabase, id: UInt64, outcome: String, now: Date) async throws -> Bool {
        guard let id = Int64(exactly: id) else { return false }
        try await sql.raw(
            """
            UPDATE identity_admin_actions SET outcome = \(bind: outcome), ended_at = \(SQLTimestamp(now))
            WHERE id = \(bind: id) AND outcome IS NULL
            """
        ).run()
        return try await sql.raw("SELECT id FROM identity_admin_actions WHERE id = \(bind: id)").first() != nil
    }

    /// Up to `limit` entries with an id below `before` (all when nil), newest first.
    static func list(_ sql: any SQLDatabase, before: UInt64?, limit: Int) async throws -> [AdminActionRecord] {
        let bound: SQLQueryString =
            if let before { "WHERE id < \(bind: Int64(clamping: before))" } else { "" }
        return try await sql.raw(
            """
            SELECT id, at, key_id, key_name, action, target, outcome FROM identity_admin_actions \(bound)
            ORDER BY id DESC LIMIT \(bind: limit)
            """
        ).all().map { row in
            AdminActionRecord(
                id: UInt64(try row.decode(column: "id", as: Int64.self)),
                atMilliseconds: try row.decodeDate(column: "at").wireMilliseconds,
                keyID: try row.decode(column: "key_id", as: String.self),
                keyName: try row.decode(column: "key_name", as: String.self),
                action: try row.decode(column: "action", as: String.self),
                target: try row.decode(column: "target", as: String?.self),
                outcome: try row.decode(column: "outcome", as: String?.self)
            )
        }
    }
}
