import Foundation
import FoyerAPI
import FoyerStorage
import SQLKit

/// A row of `identity_admin_keys`.
struct AdminKeyRecord: Sendable {
    var keyID: String
    var keyHash: [UInt8]
    var name: String
    var createdAt: Date
    var createdBy: String
    var revokedAt: Date?
    var lastUsedAt: Date?

    var info: AdminKeyInfo {
        AdminKeyInfo(
            keyID: keyID,
            name: name,
            createdAtMilliseconds: createdAt.wireMilliseconds,
            createdBy: createdBy,
            revokedAtMilliseconds: revokedAt?.wireMilliseconds,
            lastUsedAtMilliseconds: lastUsedAt?.wireMilliseconds
        )
    }
}

/// SQL on `identity_admin_keys`. Every function runs on the connection it is given.
enum AdminKeyRecords {
    static let columns = "key_id, key_hash, name, created_at, created_by, revoked_at, last_used_at"
    /// How often `last_used_at` is written per key, at most.
    static let lastUsedInterval = Duration.seconds(60)
    /// How long a revoked key stays listed before maintenance removes it (freeing its place under the cap).
    static let revokedRetention = Duration.seconds(90 * 86_400)

    /// Serialises key creation, so the cap holds under concurrent calls: PostgreSQL locks the table against other
    /// writers until the transaction ends; SQLite's write transactions already run one at a time.
    static func lockForInsert(_ sql: any SQLDatabase) async throws {
        guard sql.engineKind == .postgres else { return }
        try await sql.raw("LOCK TABLE identity_admin_keys IN SHARE ROW EXCLUSIVE MODE").run()
    }

    static func count(_ sql: any SQLDatabase) async throws -> Int {
        let row = try await sql.raw("SELECT COUNT(*) AS n FROM identity_admin_keys").first()
        return Int(try row?.decode(column: "n", as: Int64.self) ?? 0)
    }

    static func insert(_ sql: any SQLDatabase, _ record: AdminKeyRecord) async throws {
        try await sql.raw(
            """
            INSERT INTO identity_admin_keys (\(unsafeRaw: columns))
            VALUES (\(bind: record.keyID), \(SQLBytes(record.keyHash)), \(bind: record.name),
                \(SQLTimestamp(record.createdAt)), \(bind: record.createdBy), NULL, NULL)
            """
        ).run()
    }

    static func load(_ sql: any SQLDatabase, keyID: String) async throws -> AdminKeyRecord? {
        try await sql.raw(
            "SELECT \(unsafeRaw: columns) FROM identity_admin_keys WHERE key_id = \(bind: keyID)"
        ).first().map(record)
    }

    /// Every key, newest first, at most `limit`.
    static func list(_ sql: any SQLDatabase, limit: Int) async throws -> [AdminKeyRecord] {
        try await sql.raw(
            """
            SELECT \(unsafeRaw: columns) FROM identity_admin_keys
            ORDER BY created_at DESC, key_id DESC LIMIT \(bind: limit)
            """
        ).all().map(record)
    }

    /// Sets `revoked_at` unless it is set already.
    static func revoke(_ sql: any SQLDatabase, keyID: String, now: Date) async throws {
        try await sql.raw(
            """
            UPDATE identity_admin_keys SET revoked_at = \(SQLTimestamp(now.atWirePrecision))
            WHERE key_id = \(bind: keyID) AND revoked_at IS NULL
            """
        ).run()
    }

    /// Writes `now` as the key's last use unless it was written less than `lastUsedInterval` ago. Returns whether
    /// it wrote.
    static func touchLastUsed(_ sql: any SQLDatabase, keyID: String, now: Date) async throws -> Bool {
        let threshold = now.subtracting(lastUsedInterval)
        return try await !sql.raw(
            """
            UPDATE identity_admin_keys SET last_used_at = \(SQLTimestamp(now.atWirePrecision))
            WHERE key_id = \(bind: keyID) AND (last_used_at IS NULL OR last_used_at <= \(SQLTimestamp(threshold)))
            RETURNING key_id
            """
        ).all().isEmpty
    }

    /// Removes up to `limit` keys revoked before `cutoff`.
    static func pruneRevoked(_ sql: any SQLDatabase, before cutoff: Date, limit: Int) async throws {
        try await sql.raw(
            """
            DELETE FROM identity_admin_keys WHERE key_id IN (
                SELECT key_id FROM identity_admin_keys WHERE revoked_at < \(SQLTimestamp(cutoff))
                LIMIT \(bind: limit))
            """
        ).run()
    }

    private static func record(_ row: any SQLRow) throws -> AdminKeyRecord {
        AdminKeyRecord(
            keyID: try row.decode(column: "key_id", as: String.self),
            keyHash: try row.decodeBytes(column: "key_hash"),
            name: try row.decode(column: "name", as: String.self),
            createdAt: try row.decodeDate(column: "created_at"),
            createdBy: try row.decode(column: "created_by", as: String.self),
            revokedAt: try row.decodeOptionalDate(column: "revoked_at"),
            lastUsedAt: try row.decodeOptionalDate(column: "last_used_at")
        )
    }
}
