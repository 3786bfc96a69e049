import Foundation
import FoyerStorage
import SQLKit

/// The rows of `identity_apple_tokens`: per user, the Sign in with Apple refresh token to revoke when the account
/// is deleted, sealed with the key-encryption key (`sealed_token`, `kek_id`), or, when the code's exchange failed,
/// no token and why (`exchange_error`).
enum AppleTokenRecords {
    /// One row as stored.
    struct Row: Sendable {
        let uid: String
        let clientID: String
        let sealedToken: [UInt8]?
        let kekID: String?
        let exchangeError: String?
    }

    /// The longest exchange error kept.
    static let exchangeErrorByteCountMax = 200

    /// What a sealed token is bound to: its row (the uid) and the app it was issued to (the client id).
    static func associatedData(uid: String, clientID: String) -> [UInt8] {
        Array("foyer identity apple refresh token v1\u{0}\(uid)\u{0}\(clientID)".utf8)
    }

    /// Keeps `sealed` as the user's token, replacing what the row held.
    static func store(
        _ sql: any SQLDatabase,
        uid: String,
        clientID: String,
        sealed: [UInt8],
        kekID: String,
        now: Date
    ) async throws {
        try await sql.raw(
            """
            INSERT INTO identity_apple_tokens (uid, client_id, sealed_token, kek_id, exchange_error, created_at)
            VALUES (\(bind: uid), \(bind: clientID), \(SQLBytes(sealed)), \(bind: kekID), NULL, \(SQLTimestamp(now)))
            ON CONFLICT (uid) DO UPDATE SET client_id = excluded.client_id, sealed_token = excluded.sealed_token,
                kek_id = excluded.kek_id, exchange_error = NULL, created_at = excluded.created_at
            """
        ).run()
    }

    /// Records that a code was given but brought no token, unless the user already has one (which stays).
    static func recordFailure(
        _ sql: any SQLDatabase,
        uid: String,
        clientID: String,
        error: String,
        now: Date
    ) async throws {
        let reason = String(decoding: Array(error.utf8.prefix(exchangeErrorByteCountMax)), as: UTF8.self)
        try await sql.raw(
            """
            INSERT INTO identity_apple_tokens (uid, client_id, sealed_token, kek_id, exchange_error, created_at)
            VALUES (\(bind: uid), \(bind: clientID), NULL, NULL, \(bind: reason), \(SQLTimestamp(now)))
            ON CONFLICT (uid) DO NOTHING
            """
        ).run()
    }

    /// The rows of `uids`.
    static func rows(_ sql: any SQLDatabase, uids: [String]) async throws -> [Row] {
        try await sql.raw(
            """
            SELECT uid, client_id, sealed_token, kek_id, exchange_error FROM identity_apple_tokens
            WHERE uid IN (\(binds: uids))
            """
        ).all().map { row in
            Row(
                uid: try row.decode(column: "uid", as: String.self),
                clientID: try row.decode(column: "client_id", as: String.self),
                sealedToken: try row.decodeOptionalBytes(column: "sealed_token"),
                kekID: try row.decode(column: "kek_id", as: String?.self),
                exchangeError: try row.decode(column: "exchange_error", as: String?.self)
            )
        }
    }

    /// Forgets `row`, unless the user's row was replaced since it was read (a token kept by a newer link, after an
    /// unlink, stays: sealing draws a fresh nonce, so no two sealed tokens are alike).
    static func delete(_ sql: any SQLDatabase, _ row: Row) async throws {
        if let sealed = row.sealedToken {
            try await sql.raw(
                "DELETE FROM identity_apple_tokens WHERE uid = \(bind: row.uid) AND sealed_token = \(SQLBytes(sealed))"
            ).run()
        } else {
            try await sql.raw(
                "DELETE FROM identity_apple_tokens WHERE uid = \(bind: row.uid) AND sealed_token IS NULL"
            ).run()
        }
    }
}
