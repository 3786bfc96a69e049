import Foundation
import FoyerAPI
import FoyerStorage
import SQLKit

/// A row of `identity_emails`: the email credential of one user, with its password hash if it has one.
struct EmailRecord: Sendable {
    var email: String
    var uid: String
    /// Ownership proven by an email link.
    var verified: Bool
    var passwordHash: PasswordHash?
}

/// SQL on `identity_emails`.
enum EmailRecords {
    static func load(_ sql: any SQLDatabase, email: EmailAddress, lock: Bool = false) async throws -> EmailRecord? {
        let row = try await sql.raw(
            """
            SELECT email, uid, verified, password_hash FROM identity_emails
            WHERE email = \(bind: email.value)\(unsafeRaw: lock ? sql.lockClause : "")
            """
        ).first()
        return try row.map(record)
    }

    static func load(_ sql: any SQLDatabase, uid: String) async throws -> EmailRecord? {
        let row = try await sql.raw(
            "SELECT email, uid, verified, password_hash FROM identity_emails WHERE uid = \(bind: uid)"
        ).first()
        return try row.map(record)
    }

    /// Inserts the credential unless the email is taken. Returns whether it was inserted.
    static func insert(
        _ sql: any SQLDatabase,
        email: EmailAddress,
        uid: String,
        verified: Bool,
        passwordHash: PasswordHash?,
        now: Date
    ) async throws -> Bool {
        try await !sql.raw(
            """
            INSERT INTO identity_emails (email, uid, verified, password_hash, created_at)
            VALUES (\(bind: email.value), \(bind: uid), \(bind: verified), \(bind: passwordHash?.text),
                    \(SQLTimestamp(now)))
            ON CONFLICT DO NOTHING
            RETURNING uid
            """
        ).all().isEmpty
    }

    static func setPassword(_ sql: any SQLDatabase, email: EmailAddress, hash: PasswordHash?) async throws {
        try await sql.raw(
            "UPDATE identity_emails SET password_hash = \(bind: hash?.text) WHERE email = \(bind: email.value)"
        ).run()
    }

    /// Replaces the hash only if it is still `old` (a rehash must not undo a concurrent change).
    static func replacePassword(
        _ sql: any SQLDatabase,
        email: EmailAddress,
        old: PasswordHash,
        new: PasswordHash
    ) async throws {
        try await sql.raw(
            """
            UPDATE identity_emails SET password_hash = \(bind: new.text)
            WHERE email = \(bind: email.value) AND password_hash = \(bind: old.text)
            """
        ).run()
    }

    /// Moves the user's email credential to `email` (proven by a link: verified), keeping its password.
    /// Moves the user's email credential to `email`, verified. The new address is a new way in, linked `now` (so it
    /// is on probation: `requireNoCredentialOnProbation`).
    static func changeAddress(_ sql: any SQLDatabase, uid: String, to email: EmailAddress, now: Date) async throws {
        try await sql.raw(
            """
            UPDATE identity_emails SET email = \(bind: email.value), verified = \(bind: true),
                created_at = \(SQLTimestamp(now))
            WHERE uid = \(bind: uid)
            """
        ).run()
    }

    /// When each credential of the user was linked: its email credential and each provider identity.
    static func credentialsLinked(_ sql: any SQLDatabase, uid: String) async throws -> [(CredentialKind, Date)] {
        try await sql.raw(
            """
            SELECT 'email' AS kind, created_at FROM identity_emails WHERE uid = \(bind: uid)
            UNION ALL SELECT provider AS kind, created_at FROM identity_provider_links WHERE uid = \(bind: uid)
            """
        ).all().compactMap { row in
            guard let credential = CredentialKind(name: try row.decode(column: "kind", as: String.self)) else {
                return nil
            }
            return (credential, try row.decodeDate(column: "created_at"))
        }
    }

    /// Removes the user's email credential (a member unlinking it).
    static func delete(_ sql: any SQLDatabase, uid: String) async throws {
        try await sql.raw("DELETE FROM identity_emails WHERE uid = \(bind: uid)").run()
    }

    static func markVerified(_ sql: any SQLDatabase, email: EmailAddress) async throws {
        try await sql.raw(
            "UPDATE identity_emails SET verified = \(bind: true) WHERE email = \(bind: email.value)"
        ).run()
    }

    private static func record(_ row: any SQLRow) throws -> EmailRecord {
        let hashText = try row.decode(column: "password_hash", as: String?.self)
        var hash: PasswordHash?
        if let hashText {
            guard let parsed = PasswordHash(text: hashText) else {
                throw IdentityStoreError("a stored password hash is not in the expected format")
            }
            hash = parsed
        }
        return EmailRecord(
            email: try row.decode(column: "email", as: String.self),
            uid: try row.decode(column: "uid", as: String.self),
            verified: try row.decode(column: "verified", as: Bool.self),
            passwordHash: hash
        )
    }
}
