import Foundation
import FoyerAccessTokens
import FoyerCrypto
import FoyerStorage
import SQLKit
import Synchronization

/// The Ed25519 keys that sign access tokens, kept in `identity_signing_keys` and cached here.
///
/// The newest unretired key signs. A rotated key is retired, not deleted: it stays published in the JWKS and
/// accepted by `verifyAccessToken` until every token it signed has expired (lifetime + skew), then the janitor
/// deletes it. Replicas reload the keys every `signingKeyReloadInterval` and on an unknown `kid` (at most that
/// often), so a rotation on one replica reaches the others.
final class SigningKeyRing: Sendable {
    struct Key: Sendable {
        let keyID: String
        let privateKey: Ed25519PrivateKey
        let createdAt: Date
        let retiredAt: Date?
    }

    private struct State {
        var keys: [Key] = []
        var lastLoad: Date = .distantPast
    }

    private let state = Mutex(State())
    private let publicationWindow: Duration
    private let reloadInterval: Duration

    init(publicationWindow: Duration, reloadInterval: Duration) {
        self.publicationWindow = publicationWindow
        self.reloadInterval = reloadInterval
    }

    /// The key id of an Ed25519 public key: base64url of the first 16 bytes of its SHA-256.
    static func keyID(of key: Ed25519PublicKey) -> String {
        Base64URL.encode(SHA256.hash(key.rawRepresentation).prefix(16))
    }

    /// The signer for new tokens.
    func signer() -> JWTSigner {
        state.withLock { state in
            // load() guarantees at least one unretired key.
            let key = state.keys.last { $0.retiredAt == nil } ?? state.keys.last!
            return JWTSigner(privateKey: key.privateKey, keyID: key.keyID, type: AccessTokenClaims.type)
        }
    }

    /// The verification key for `kid` if that key is still published at `now`.
    func verificationKey(id: String, now: Date) -> JWTVerificationKey? {
        state.withLock { state in
            state.keys.first { $0.keyID == id && isPublished($0, now: now) }.map { .ed25519($0.privateKey.publicKey) }
        }
    }

    /// The published keys as a JWK Set.
    func jwks(now: Date) -> JWKSet {
        state.withLock { state in
            JWKSet(
                keys: state.keys.filter { isPublished($0, now: now) }.map {
                    $0.privateKey.publicKey.jwk(keyID: $0.keyID)
                }
            )
        }
    }

    private func isPublished(_ key: Key, now: Date) -> Bool {
        guard let retiredAt = key.retiredAt else { return true }
        return now < retiredAt.adding(publicationWindow)
    }

    // MARK: Storage

    /// Loads every key; creates the first one if there is none.
    func load(_ database: FoyerDatabase, now: Date) async throws {
        var keys = try await database.withConnection { sql in try await Self.readKeys(sql) }
        if !keys.contains(where: { $0.retiredAt == nil }) {
            keys = try await database.transaction { sql in
                let current = try await Self.readKeys(sql)
                if current.contains(where: { $0.retiredAt == nil }) { return current }
                try await Self.insertNewKey(sql, now: now)
                return try await Self.readKeys(sql)
            }
        }
        state.withLock { state in
            state.keys = keys
            state.lastLoad = now
        }
    }

    /// Reloads the keys if the last load is older than the reload interval. Returns whether it reloaded.
    @discardableResult
    func reloadIfDue(_ database: FoyerDatabase, now: Date) async throws -> Bool {
        let due = state.withLock { now >= $0.lastLoad.adding(reloadInterval) || now < $0.lastLoad }
        guard due else { return false }
        try await load(database, now: now)
        return true
    }

    /// Retires the current key(s) and creates a new one. Returns the new key id.
    func rotate(_ database: FoyerDatabase, now: Date) async throws -> String {
        let keyID = try await database.transaction { sql in
            try await sql.raw(
                "UPDATE identity_signing_keys SET retired_at = \(SQLTimestamp(now)) WHERE retired_at IS NULL"
            ).run()
            return try await Self.insertNewKey(sql, now: now)
        }
        try await load(database, now: now)
        return keyID
    }

    /// Deletes keys retired long enough ago that no token they signed can still be valid.
    func pruneRetired(_ sql: any SQLDatabase, now: Date) async throws {
        let cutoff = now.subtracting(publicationWindow)
        try await sql.raw(
            "DELETE FROM identity_signing_keys WHERE retired_at IS NOT NULL AND retired_at < \(SQLTimestamp(cutoff))"
        ).run()
    }

    @discardableResult
    private static func insertNewKey(_ sql: any SQLDatabase, now: Date) async throws -> String {
        let key = Ed25519PrivateKey()
        let keyID = keyID(of: key.publicKey)
        try await sql.raw(
            """
            INSERT INTO identity_signing_keys (kid, private_key, created_at, retired_at)
            VALUES (\(bind: keyID), \(SQLBytes(key.rawRepresentation)), \(SQLTimestamp(now)), NULL)
            """
        ).run()
        return keyID
    }

    private static func readKeys(_ sql: any SQLDatabase) async throws -> [Key] {
        try await sql.raw(
            "SELECT kid, private_key, created_at, retired_at FROM identity_signing_keys ORDER BY created_at, kid"
        ).all().map { row in
            Key(
                keyID: try row.decode(column: "kid", as: String.self),
                privateKey: try Ed25519PrivateKey(rawRepresentation: row.decodeBytes(column: "private_key")),
                createdAt: try row.decodeDate(column: "created_at"),
                retiredAt: try row.decodeOptionalDate(column: "retired_at")
            )
        }
    }
}
