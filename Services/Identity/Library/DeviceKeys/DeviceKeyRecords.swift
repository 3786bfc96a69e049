import Foundation
import FoyerAPI
import FoyerStorage
import SQLKit

/// A row of `identity_device_keys`.
struct DeviceKeyRecord: Sendable {
    var keyID: [UInt8]
    var uid: String
    var publicKey: [UInt8]
}

/// SQL on `identity_device_keys` and `identity_device_key_challenges`.
enum DeviceKeyRecords {
    static func insertChallenge(
        _ sql: any SQLDatabase,
        hash: [UInt8],
        purpose: DeviceKeyPurpose,
        now: Date,
        expiry: Date
    ) async throws {
        try await sql.raw(
            """
            INSERT INTO identity_device_key_challenges (challenge_hash, purpose, created_at, expires_at)
            VALUES (\(SQLBytes(hash)), \(bind: purpose.label), \(SQLTimestamp(now)), \(SQLTimestamp(expiry)))
            """
        ).run()
    }

    /// Spends the challenge whose hash is `hash`: the row is deleted whatever follows, so a challenge is tried once.
    /// Answers the purpose and expiry it had, or nil when there is no such challenge (never made, or spent).
    static func takeChallenge(
        _ sql: any SQLDatabase,
        hash: [UInt8]
    ) async throws -> (purpose: String, expiresAt: Date)? {
        guard
            let row = try await sql.raw(
                """
                SELECT purpose, expires_at FROM identity_device_key_challenges
                WHERE challenge_hash = \(SQLBytes(hash))\(unsafeRaw: sql.lockClause)
                """
            ).first()
        else { return nil }
        try await sql.raw("DELETE FROM identity_device_key_challenges WHERE challenge_hash = \(SQLBytes(hash))").run()
        return (try row.decode(column: "purpose", as: String.self), try row.decodeDate(column: "expires_at"))
    }

    static func load(_ sql: any SQLDatabase, keyID: [UInt8], lock: Bool = false) async throws -> DeviceKeyRecord? {
        guard
            let row = try await sql.raw(
                """
                SELECT key_id, uid, public_key FROM identity_device_keys
                WHERE key_id = \(SQLBytes(keyID))\(unsafeRaw: lock ? sql.lockClause : "")
                """
            ).first()
        else { return nil }
        return DeviceKeyRecord(
            keyID: try row.decodeBytes(column: "key_id"),
            uid: try row.decode(column: "uid", as: String.self),
            publicKey: try row.decodeBytes(column: "public_key")
        )
    }

    /// The ids of the user's keys, the least recently used first.
    static func keyIDs(_ sql: any SQLDatabase, uid: String) async throws -> [[UInt8]] {
        try await sql.raw(
            """
            SELECT key_id FROM identity_device_keys WHERE uid = \(bind: uid)
            ORDER BY last_used_at, created_at, key_id
            """
        ).all().map { try $0.decodeBytes(column: "key_id") }
    }

    static func insert(
        _ sql: any SQLDatabase,
        keyID: [UInt8],
        uid: String,
        publicKey: [UInt8],
        now: Date
    )
        async throws
    {
        try await sql.raw(
            """
            INSERT INTO identity_device_keys (key_id, uid, public_key, created_at, last_used_at)
            VALUES (\(SQLBytes(keyID)), \(bind: uid), \(SQLBytes(publicKey)), \(SQLTimestamp(now)), \(SQLTimestamp(now)))
            """
        ).run()
    }

    static func delete(_ sql: any SQLDatabase, keyID: [UInt8]) async throws {
        try await sql.raw("DELETE FROM identity_device_keys WHERE key_id = \(SQLBytes(keyID))").run()
    }

    static func touch(_ sql: any SQLDatabase, keyID: [UInt8], now: Date) async throws {
        try await sql.raw(
            "UPDATE identity_device_keys SET last_used_at = \(SQLTimestamp(now)) WHERE key_id = \(SQLBytes(keyID))"
        ).run()
    }

    /// Every key of the users (sign-out everywhere, a merge or deletion beginning).
    static func deleteAll(_ sql: any SQLDatabase, uids: [String]) async throws {
        guard !uids.isEmpty else { return }
        try await sql.raw("DELETE FROM identity_device_keys WHERE uid IN (\(binds: uids))").run()
    }
}
