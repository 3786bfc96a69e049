import Foundation
import FoyerStorage
import SQLKit

/// A refresh token's row joined with its session's.
struct RefreshTokenRecord: Sendable {
    var tokenHash: [UInt8]
    var sessionID: String
    var generation: Int64
    var rotatedAt: Date?
    var successorHash: [UInt8]?
    var successorWrapped: [UInt8]?
    var uid: String
    var sessionCreatedAt: Date
    var lastUsedAt: Date
    var absoluteExpiresAt: Date
    var revokedAt: Date?
}

/// SQL on `identity_sessions` and `identity_refresh_tokens`.
enum SessionRecords {
    static func insertSession(
        _ sql: any SQLDatabase,
        id: String,
        uid: String,
        now: Date,
        absoluteExpiry: Date
    ) async throws {
        try await sql.raw(
            """
            INSERT INTO identity_sessions (id, uid, created_at, last_used_at, absolute_expires_at, revoked_at)
            VALUES (\(bind: id), \(bind: uid), \(SQLTimestamp(now)), \(SQLTimestamp(now)),
                    \(SQLTimestamp(absoluteExpiry)), NULL)
            """
        ).run()
    }

    static func insertRefreshToken(
        _ sql: any SQLDatabase,
        hash: [UInt8],
        sessionID: String,
        generation: Int64,
        now: Date
    ) async throws {
        try await sql.raw(
            """
            INSERT INTO identity_refresh_tokens
                (token_hash, session_id, generation, created_at, rotated_at, successor_hash, successor_wrapped)
            VALUES (\(SQLBytes(hash)), \(bind: sessionID), \(bind: generation), \(SQLTimestamp(now)), NULL, NULL, NULL)
            """
        ).run()
    }

    /// The token and its session, both locked on PostgreSQL, so concurrent refreshes of one session queue.
    static func loadRefreshToken(_ sql: any SQLDatabase, hash: [UInt8]) async throws -> RefreshTokenRecord? {
        guard
            let row = try await sql.raw(
                """
                SELECT t.token_hash, t.session_id, t.generation, t.rotated_at, t.successor_hash, t.successor_wrapped,
                       s.uid, s.created_at, s.last_used_at, s.absolute_expires_at, s.revoked_at
                FROM identity_refresh_tokens t JOIN identity_sessions s ON s.id = t.session_id
                WHERE t.token_hash = \(SQLBytes(hash))\(unsafeRaw: sql.lockClause)
                """
            ).first()
        else { return nil }
        return RefreshTokenRecord(
            tokenHash: try row.decodeBytes(column: "token_hash"),
            sessionID: try row.decode(column: "session_id", as: String.self),
            generation: try row.decode(column: "generation", as: Int64.self),
            rotatedAt: try row.decodeOptionalDate(column: "rotated_at"),
            successorHash: try row.decodeOptionalBytes(column: "successor_hash"),
            successorWrapped: try row.decodeOptionalBytes(column: "successor_wrapped"),
            uid: try row.decode(column: "uid", as: String.self),
            sessionCreatedAt: try row.decodeDate(column: "created_at"),
            lastUsedAt: try row.decodeDate(column: "last_used_at"),
            absoluteExpiresAt: try row.decodeDate(column: "absolute_expires_at"),
            revokedAt: try row.decodeOptionalDate(column: "revoked_at")
        )
    }

    /// Whether the token with this hash has itself been rotated (so it is not the newest of its session).
    static func isRotated(_ sql: any SQLDatabase, hash: [UInt8]) async throws -> Bool {
        let row = try await sql.raw(
            "SELECT successor_hash FROM identity_refresh_tokens WHERE token_hash = \(SQLBytes(hash))"
        ).first()
        guard let row else { return true }
        return try row.decodeOptionalBytes(column: "successor_hash") != nil
    }

    static func recordRotation(
        _ sql: any SQLDatabase,
        hash: [UInt8],
        successorHash: [UInt8],
        successorWrapped: [UInt8],
        now: Date
    ) async throws {
        try await sql.raw(
            """
            UPDATE identity_refresh_tokens SET rotated_at = \(SQLTimestamp(now)),
                successor_hash = \(SQLBytes(successorHash)), successor_wrapped = \(SQLBytes(successorWrapped))
            WHERE token_hash = \(SQLBytes(hash))
            """
        ).run()
    }

    static func markUsed(_ sql: any SQLDatabase, sessionID: String, now: Date) async throws {
        try await sql.raw(
            "UPDATE identity_sessions SET last_used_at = \(SQLTimestamp(now)) WHERE id = \(bind: sessionID)"
        ).run()
    }

    /// Revokes one session. Returns false if the user has no such session.
    static func revoke(_ sql: any SQLDatabase, sessionID: String, uid: String, now: Date) async throws -> Bool {
        try await !sql.raw(
            """
            UPDATE identity_sessions SET revoked_at = COALESCE(revoked_at, \(SQLTimestamp(now)))
            WHERE id = \(bind: sessionID) AND uid = \(bind: uid)
            RETURNING id
            """
        ).all().isEmpty
    }

    /// Revokes every session of the users.
    static func revokeAll(_ sql: any SQLDatabase, uids: [String], now: Date) async throws {
        try await sql.raw(
            """
            UPDATE identity_sessions SET revoked_at = \(SQLTimestamp(now))
            WHERE uid IN (\(binds: uids)) AND revoked_at IS NULL
            """
        ).run()
    }

    /// When the user's session began, if it exists and is not revoked.
    static func liveSessionStart(_ sql: any SQLDatabase, sessionID: String, uid: String) async throws -> Date? {
        try await sql.raw(
            """
            SELECT created_at FROM identity_sessions
            WHERE id = \(bind: sessionID) AND uid = \(bind: uid) AND revoked_at IS NULL
            """
        ).first()?.decodeDate(column: "created_at")
    }

    /// Whether the session exists, belongs to `uid` and is neither revoked nor expired at `now`.
    static func isLive(
        _ sql: any SQLDatabase,
        sessionID: String,
        uid: String,
        now: Date,
        idleTimeout: Duration
    ) async throws -> Bool {
        guard
            let row = try await sql.raw(
                """
                SELECT uid, last_used_at, absolute_expires_at, revoked_at FROM identity_sessions
                WHERE id = \(bind: sessionID)
                """
            ).first()
        else { return false }
        guard try row.decode(column: "uid", as: String.self) == uid,
            try row.decodeOptionalDate(column: "revoked_at") == nil
        else { return false }
        let lastUsed = try row.decodeDate(column: "last_used_at")
        let absolute = try row.decodeDate(column: "absolute_expires_at")
        return now < absolute && now < lastUsed.adding(idleTimeout)
    }
}
