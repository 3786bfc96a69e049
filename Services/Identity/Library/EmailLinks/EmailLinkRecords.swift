import Foundation
import FoyerAPI
import FoyerStorage
import SQLKit

/// A row of `identity_email_links`.
struct EmailLinkRecord: Sendable {
    var tokenHash: [UInt8]
    var email: String
    var purpose: EmailLinkKind
    var uid: String?
    var challenge: [UInt8]
    var createdAt: Date
    var expiresAt: Date
    var consumedAt: Date?
    var failedAttempts: Int64
    /// The session that asked for an email change; nil for the other kinds.
    var sessionID: String?
    /// The hash of the email's code (`EmailCodeSecret`); nil when the email carried none.
    var codeHash: [UInt8]?
}

/// SQL on `identity_email_links`.
enum EmailLinkRecords {
    static func insert(
        _ sql: any SQLDatabase,
        tokenHash: [UInt8],
        email: EmailAddress,
        purpose: EmailLinkKind,
        uid: String?,
        challenge: [UInt8],
        source: ClientSource,
        now: Date,
        expiry: Date,
        sessionID: String? = nil,
        codeHash: [UInt8]? = nil
    ) async throws {
        let sourceHash: any SQLExpression = sourceHash(source).map { SQLBytes($0) } ?? SQLLiteral.null
        let code: any SQLExpression = codeHash.map { SQLBytes($0) } ?? SQLLiteral.null
        try await sql.raw(
            """
            INSERT INTO identity_email_links (token_hash, email, purpose, uid, challenge, created_at, expires_at,
                consumed_at, failed_attempts, source_hash, session_id, code_hash)
            VALUES (\(SQLBytes(tokenHash)), \(bind: email.value), \(bind: purpose.text), \(bind: uid),
                \(SQLBytes(challenge)), \(SQLTimestamp(now)), \(SQLTimestamp(expiry)), NULL, 0, \(sourceHash),
                \(bind: sessionID), \(code))
            """
        ).run()
    }

    static func load(_ sql: any SQLDatabase, tokenHash: [UInt8]) async throws -> EmailLinkRecord? {
        let row = try await sql.raw(
            """
            SELECT \(unsafeRaw: columns) FROM identity_email_links
            WHERE token_hash = \(SQLBytes(tokenHash))\(unsafeRaw: sql.lockClause)
            """
        ).first()
        return try row.map(record)
    }

    /// The newest row of `purpose` sent to the address with a code (for a link, the one `uid` asked for), locked:
    /// the only one whose code `completeEmailCode` checks, spent or not (a newer email replaces an older code).
    static func loadNewestWithCode(
        _ sql: any SQLDatabase,
        email: EmailAddress,
        purpose: EmailLinkKind,
        uid: String?
    ) async throws -> EmailLinkRecord? {
        let row = try await sql.raw(
            """
            SELECT \(unsafeRaw: columns) FROM identity_email_links
            WHERE email = \(bind: email.value) AND purpose = \(bind: purpose.text) AND code_hash IS NOT NULL
                AND COALESCE(uid, '') = \(bind: uid ?? "")
            ORDER BY created_at DESC LIMIT 1\(unsafeRaw: sql.lockClause)
            """
        ).first()
        return try row.map(record)
    }

    private static let columns = """
        token_hash, email, purpose, uid, challenge, created_at, expires_at, consumed_at, failed_attempts, session_id,
        code_hash
        """

    private static func record(_ row: any SQLRow) throws -> EmailLinkRecord {
        let purposeText = try row.decode(column: "purpose", as: String.self)
        guard let purpose = EmailLinkKind(text: purposeText) else {
            throw IdentityStoreError("unknown email-link purpose '\(purposeText)'")
        }
        return EmailLinkRecord(
            tokenHash: try row.decodeBytes(column: "token_hash"),
            email: try row.decode(column: "email", as: String.self),
            purpose: purpose,
            uid: try row.decode(column: "uid", as: String?.self),
            challenge: try row.decodeBytes(column: "challenge"),
            createdAt: try row.decodeDate(column: "created_at"),
            expiresAt: try row.decodeDate(column: "expires_at"),
            consumedAt: try row.decodeOptionalDate(column: "consumed_at"),
            failedAttempts: try row.decode(column: "failed_attempts", as: Int64.self),
            sessionID: try row.decode(column: "session_id", as: String?.self),
            codeHash: try row.decodeOptionalBytes(column: "code_hash")
        )
    }

    /// How many links were sent to the address since `since`, and when the oldest of them was.
    static func recent(_ sql: any SQLDatabase, email: EmailAddress, since: Date) async throws -> (Int, Date?) {
        let row = try await sql.raw(
            """
            SELECT COUNT(*) AS sent, MIN(created_at) AS oldest FROM identity_email_links
            WHERE email = \(bind: email.value) AND created_at >= \(SQLTimestamp(since))
            """
        ).first()
        guard let row else { return (0, nil) }
        return (try row.decode(column: "sent", as: Int.self), try row.decodeOptionalDate(column: "oldest"))
    }

    /// How many links `source` asked for since `since` (to any address), and when the oldest of them was.
    static func recent(_ sql: any SQLDatabase, sourceHash: [UInt8], since: Date) async throws -> (Int, Date?) {
        let row = try await sql.raw(
            """
            SELECT COUNT(*) AS sent, MIN(created_at) AS oldest FROM identity_email_links
            WHERE source_hash = \(SQLBytes(sourceHash)) AND created_at >= \(SQLTimestamp(since))
            """
        ).first()
        guard let row else { return (0, nil) }
        return (try row.decode(column: "sent", as: Int.self), try row.decodeOptionalDate(column: "oldest"))
    }

    /// How many links were sent since `since` in all, and when the oldest of them was.
    static func recentInAll(_ sql: any SQLDatabase, since: Date) async throws -> (Int, Date?) {
        let row = try await sql.raw(
            """
            SELECT COUNT(*) AS sent, MIN(created_at) AS oldest FROM identity_email_links
            WHERE created_at >= \(SQLTimestamp(since))
            """
        ).first()
        guard let row else { return (0, nil) }
        return (try row.decode(column: "sent", as: Int.self), try row.decodeOptionalDate(column: "oldest"))
    }

    /// What a link stores of its client source: SHA-256 of the source's key (not the address in clear); nil for an
    /// internal caller.
    static func sourceHash(_ source: ClientSource) -> [UInt8]? {
        source.key.map { Identifiers.digest("email-link-source", $0) }
    }

    static func consume(_ sql: any SQLDatabase, tokenHash: [UInt8], now: Date) async throws {
        try await sql.raw(
            "UPDATE identity_email_links SET consumed_at = \(SQLTimestamp(now)) WHERE token_hash = \(SQLBytes(tokenHash))"
        ).run()
    }

    /// Expires every unused token bound to one of `uids` (an email change, a link, a reset), so that none outlives
    /// the step that ended the users' sessions: redeeming one answers `token-expired`. The rows stay until pruned by
    /// their creation time: the limits on sending count them.
    static func revokePending(_ sql: any SQLDatabase, uids: [String], now: Date) async throws {
        try await sql.raw(
            """
            UPDATE identity_email_links SET expires_at = \(SQLTimestamp(now))
            WHERE uid IN (\(binds: uids)) AND consumed_at IS NULL AND expires_at > \(SQLTimestamp(now))
            """
        ).run()
    }

    /// Counts a wrong verifier; with `burn`, the token can no longer be used.
    static func recordFailure(
        _ sql: any SQLDatabase,
        tokenHash: [UInt8],
        failures: Int64,
        burn: Bool,
        now: Date
    )
        async throws
    {
        try await sql.raw(
            """
            UPDATE identity_email_links SET failed_attempts = \(bind: failures),
                consumed_at = CASE WHEN \(bind: burn) THEN \(SQLTimestamp(now)) ELSE consumed_at END
            WHERE token_hash = \(SQLBytes(tokenHash))
            """
        ).run()
    }

    static func delete(_ sql: any SQLDatabase, tokenHash: [UInt8]) async throws {
        try await sql.raw("DELETE FROM identity_email_links WHERE token_hash = \(SQLBytes(tokenHash))").run()
    }

    static func purposeText(_ purpose: EmailLinkPurpose) -> String {
        EmailLinkKind(purpose).text
    }
}
