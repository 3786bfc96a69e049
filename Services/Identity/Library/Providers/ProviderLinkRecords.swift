import Foundation
import FoyerAPI
import FoyerStorage
import SQLKit

/// SQL on `identity_provider_links` (identities keyed by issuer and subject) and `identity_used_nonces`.
enum ProviderLinkRecords {
    /// The user that holds the identity, locked on PostgreSQL.
    static func owner(_ sql: any SQLDatabase, issuer: String, subject: String) async throws -> String? {
        try await sql.raw(
            """
            SELECT uid FROM identity_provider_links
            WHERE issuer = \(bind: issuer) AND subject = \(bind: subject)\(unsafeRaw: sql.lockClause)
            """
        ).first()?.decode(column: "uid", as: String.self)
    }

    static func hasProvider(_ sql: any SQLDatabase, uid: String, provider: IdentityProvider) async throws -> Bool {
        try await sql.raw(
            """
            SELECT 1 AS one FROM identity_provider_links
            WHERE uid = \(bind: uid) AND provider = \(bind: provider.description)
            """
        ).first() != nil
    }

    /// Links the identity to `uid`. Returns false if someone else linked it first.
    static func insert(_ sql: any SQLDatabase, identity: ProviderIdentity, uid: String, now: Date) async throws -> Bool
    {
        try await !sql.raw(
            """
            INSERT INTO identity_provider_links (issuer, subject, uid, provider, email, email_trusted, created_at)
            VALUES (\(bind: identity.issuer), \(bind: identity.subject), \(bind: uid),
                \(bind: identity.provider.description), \(bind: identity.email), \(bind: identity.emailTrusted),
                \(SQLTimestamp(now)))
            ON CONFLICT DO NOTHING
            RETURNING uid
            """
        ).all().isEmpty
    }

    /// Keeps the provider's latest word on the email (tokens without one leave it as it was).
    static func updateEmail(_ sql: any SQLDatabase, identity: ProviderIdentity) async throws {
        guard identity.email != nil else { return }
        try await sql.raw(
            """
            UPDATE identity_provider_links SET email = \(bind: identity.email),
                email_trusted = \(bind: identity.emailTrusted)
            WHERE issuer = \(bind: identity.issuer) AND subject = \(bind: identity.subject)
            """
        ).run()
    }

    /// Unlinks the identity of `provider` from `uid` (a member removing it).
    static func remove(_ sql: any SQLDatabase, uid: String, provider: IdentityProvider) async throws {
        try await sql.raw(
            """
            DELETE FROM identity_provider_links WHERE uid = \(bind: uid) AND provider = \(bind: provider.description)
            """
        ).run()
    }

    /// Unlinks every identity of `uid`. Returns how many there were.
    static func removeAll(_ sql: any SQLDatabase, uid: String) async throws -> Int {
        try await sql.raw("DELETE FROM identity_provider_links WHERE uid = \(bind: uid) RETURNING issuer").all().count
    }

    static func identities(_ sql: any SQLDatabase, uid: String) async throws -> [LinkedIdentity] {
        try await sql.raw(
            """
            SELECT provider, subject, email, email_trusted FROM identity_provider_links
            WHERE uid = \(bind: uid) ORDER BY created_at, provider
            """
        ).all().compactMap { row in
            let name = try row.decode(column: "provider", as: String.self)
            guard let provider = IdentityProvider.allCases.first(where: { $0.description == name }) else { return nil }
            return LinkedIdentity(
                provider: provider,
                subject: try row.decode(column: "subject", as: String.self),
                email: try row.decode(column: "email", as: String?.self),
                emailTrusted: try row.decode(column: "email_trusted", as: Bool.self)
            )
        }
    }

    /// Marks an ID token used until it expires, by `hash` (of its nonce, or without one of its `jti` or signed
    /// part). Returns false if it was used before.
    static func spendNonce(_ sql: any SQLDatabase, hash: [UInt8], uid: String, until expiry: Date) async throws -> Bool
    {
        try await !sql.raw(
            """
            INSERT INTO identity_used_nonces (nonce_hash, uid, expires_at)
            VALUES (\(SQLBytes(hash)), \(bind: uid), \(SQLTimestamp(expiry)))
            ON CONFLICT DO NOTHING
            RETURNING expires_at
            """
        ).all().isEmpty
    }
}
