import Foundation
import FoyerAccessTokens
import FoyerCrypto
import FoyerStorage
import SQLKit
import Synchronization

/// The keys that sign access tokens, kept in `identity_signing_keys` (sealed with the key-encryption key when one
/// is configured; see `SigningKeyRecords`) and cached here. Each key has one algorithm (EdDSA, ES256 or RS256); new
/// keys are made for the configured `algorithm`, and every published key is in the JWKS with its own `alg`, so
/// verifiers accept the tokens of the key being replaced while the new one takes over.
///
/// A new key is published at once but signs only `activationDelay` later, and the key it replaces keeps signing
/// until then (its `retired_at` is that moment): by the time a token names the new key, every identity replica has
/// reloaded it and every gateway has fetched it or may refetch for it, so no one refuses a token for an unknown
/// `kid`. The signer is the newest key at least `activationDelay` old that has not retired (when none is that old,
/// the replaced key that retires soonest, and the very first key at once). A retired key is not deleted: it stays published in the JWKS and accepted by
/// `verifyAccessToken` until every token it signed has expired (lifetime + skew after `retired_at`), then the janitor
/// deletes it. Keys rotate on request (`rotate`) and on a schedule (`rotateIfDue`, from the janitor). Replicas
/// reload the keys every `signingKeyReloadInterval` and on an unknown `kid` (at most that often), so a rotation on
/// one replica reaches the others. When identity starts with another algorithm than the current key's, it rotates
/// at once (``rotateToConfiguredAlgorithm(_:now:)``), with the same activation delay.
final class SigningKeyRing: Sendable {
    struct Key: Sendable {
        let keyID: String
        let privateKey: JWTSigningKey
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
    private let activationDelay: Duration
    private let records: SigningKeyRecords
    /// The algorithm of the keys this ring makes.
    let algorithm: JWSAlgorithm

    init(
        algorithm: JWSAlgorithm = .es256,
        publicationWindow: Duration,
        reloadInterval: Duration,
        activationDelay: Duration,
        encryptionKey: SigningKeyEncryptionKey? = nil,
        previousEncryptionKey: SigningKeyEncryptionKey? = nil
    ) {
        self.algorithm = algorithm
        self.publicationWindow = publicationWindow
        self.reloadInterval = reloadInterval
        self.activationDelay = activationDelay
        records = SigningKeyRecords(current: encryptionKey, previous: previousEncryptionKey)
    }

    /// The signer for tokens issued at `now`.
    func signer(now: Date) -> JWTSigner {
        let key = state.withLock { state in signingKey(among: state.keys, now: now) }
        return JWTSigner(signingKey: key.privateKey, keyID: key.keyID, type: AccessTokenClaims.type)
    }

    /// The newest key at least `activationDelay` old that has not retired. When none is that old (the first key, or
    /// a rotation soon after it): the replaced key that retires soonest, so no key signs before its time; else (the
    /// very first key) the newest unretired one. load() guarantees at least one unretired key.
    private func signingKey(among keys: [Key], now: Date) -> Key {
        let isActive = { (key: Key) in
            key.createdAt.adding(self.activationDelay) <= now && key.retiredAt.map { now < $0 } ?? true
        }
        if let active = keys.last(where: isActive) { return active }
        let replaced = keys.compactMap { key in key.retiredAt.flatMap { now < $0 ? (key: key, until: $0) : nil } }
        if let soonest = replaced.min(by: { $0.until < $1.until }) { return soonest.key }
        return keys.last { $0.retiredAt == nil } ?? keys.last!
    }

    /// The verification key for `kid` if that key is still published at `now`.
    func verificationKey(id: String, now: Date) -> JWTVerificationKey? {
        state.withLock { state in
            state.keys.first { $0.keyID == id && isPublished($0, now: now) }.map(\.privateKey.verificationKey)
        }
    }

    /// The published keys as a JWK Set.
    func jwks(now: Date) -> JWKSet {
        state.withLock { state in
            JWKSet(
                keys: state.keys.filter { isPublished($0, now: now) }.map {
                    $0.privateKey.verificationKey.jwk(keyID: $0.keyID)
                }
            )
        }
    }

    private func isPublished(_ key: Key, now: Date) -> Bool {
        guard let retiredAt = key.retiredAt else { return true }
        return now < retiredAt.adding(publicationWindow)
    }

    // MARK: Storage

    /// At start, before ``load(_:now:)``: with a key-encryption key, seals the keys kept in clear (and re-seals
    /// those of the previous KEK) in one transaction; without one, refuses keys that are sealed. Either way a key
    /// sealed with a KEK this identity does not have stops the start (``IdentityConfigurationError``, naming both).
    /// Returns how many keys it sealed.
    func prepareStorage(_ database: FoyerDatabase) async throws -> Int {
        guard records.current != nil else {
            let sealedWith = try await database.withConnection { sql in try await SigningKeyRecords.kekIDs(sql) }
            if let kekID = sealedWith.first {
                throw IdentityConfigurationError(
                    """
                    identity_signing_keys holds keys sealed with the key-encryption key \(kekID), and identity has \
                    none: give it with --signing-key-encryption-key-file (FOYER_SIGNING_KEY_ENCRYPTION_KEY_FILE)
                    """
                )
            }
            return 0
        }
        return try await records.sealStoredKeys(database)
    }

    /// Loads every key; creates the first one (of the configured algorithm) if there is none.
    func load(_ database: FoyerDatabase, now: Date) async throws {
        var rows = try await database.withConnection { sql in try await SigningKeyRecords.read(sql) }
        if !rows.contains(where: { $0.retiredAt == nil }) {
            let newKey = JWTSigningKey(generatingFor: algorithm)
            rows = try await database.transaction { [records] sql in
                let current = try await SigningKeyRecords.read(sql)
                if current.contains(where: { $0.retiredAt == nil }) { return current }
                try await records.insertNewKey(sql, newKey, now: now)
                return try await SigningKeyRecords.read(sql)
            }
        }
        let keys = try rows.map { row in
            Key(
                keyID: row.keyID,
                privateKey: try records.privateKey(of: row),
                createdAt: row.createdAt,
                retiredAt: row.retiredAt
            )
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

    /// Creates a new key, published at once, and retires the current key(s) when it starts signing,
    /// `activationDelay` from `now`. Returns the new key id.
    func rotate(_ database: FoyerDatabase, now: Date) async throws -> String {
        let retiredAt = SQLTimestamp(now.adding(activationDelay))
        let newKey = JWTSigningKey(generatingFor: algorithm)
        let keyID = try await database.transaction { [records] sql in
            try await sql.raw(
                "UPDATE identity_signing_keys SET retired_at = \(retiredAt) WHERE retired_at IS NULL"
            ).run()
            return try await records.insertNewKey(sql, newKey, now: now)
        }
        try await load(database, now: now)
        return keyID
    }

    /// The scheduled rotation: when no unretired key is younger than `interval`, retires the unretired keys and
    /// creates a new one. Returns the new key id, or nil when no rotation was due.
    ///
    /// The retiring UPDATE carries the condition itself, and the new key is inserted only if it retired a row, in
    /// one transaction: when several replicas' janitors run at once, the first retires and inserts; the others'
    /// UPDATEs find no unretired row old enough (SQLite: their transactions queue behind it; PostgreSQL: an UPDATE
    /// that waited for the first one's row lock re-checks `retired_at IS NULL` on the committed row), so exactly one
    /// new key is made.
    func rotateIfDue(_ database: FoyerDatabase, now: Date, interval: Duration) async throws -> String? {
        let cutoff = SQLTimestamp(now.subtracting(interval))
        let retiredAt = SQLTimestamp(now.adding(activationDelay))
        let newKey = JWTSigningKey(generatingFor: algorithm)
        let keyID: String? = try await database.transaction { [records] sql in
            let retired = try await sql.raw(
                """
                UPDATE identity_signing_keys SET retired_at = \(retiredAt)
                WHERE retired_at IS NULL AND NOT EXISTS (
                    SELECT 1 FROM identity_signing_keys AS newer
                    WHERE newer.retired_at IS NULL AND newer.created_at > \(cutoff))
                RETURNING kid
                """
            ).all()
            guard !retired.isEmpty else { return nil }
            return try await records.insertNewKey(sql, newKey, now: now)
        }
        if keyID != nil { try await load(database, now: now) }
        return keyID
    }

    /// At start, after ``load(_:now:)``: when no unretired key has the configured algorithm (identity was started
    /// with another `--signing-algorithm`), retires the unretired keys and creates one of that algorithm, as
    /// ``rotate(_:now:)`` does: the old key signs until the new one is `activationDelay` old, and stays published
    /// until its last tokens have expired. Returns the new key id, or nil when the current key already has the
    /// algorithm.
    ///
    /// As in ``rotateIfDue(_:now:interval:)``, the condition is in the UPDATE, so replicas that start together
    /// make one key between them.
    func rotateToConfiguredAlgorithm(_ database: FoyerDatabase, now: Date) async throws -> String? {
        let current = state.withLock { state in state.keys.filter { $0.retiredAt == nil } }
        guard !current.contains(where: { $0.privateKey.algorithm == algorithm }) else { return nil }
        let retiredAt = SQLTimestamp(now.adding(activationDelay))
        let newKey = JWTSigningKey(generatingFor: algorithm)
        let keyID: String? = try await database.transaction { [records, algorithm] sql in
            let retired = try await sql.raw(
                """
                UPDATE identity_signing_keys SET retired_at = \(retiredAt)
                WHERE retired_at IS NULL AND NOT EXISTS (
                    SELECT 1 FROM identity_signing_keys AS same
                    WHERE same.retired_at IS NULL AND same.algorithm = \(bind: algorithm.rawValue))
                RETURNING kid
                """
            ).all()
            guard !retired.isEmpty else { return nil }
            return try await records.insertNewKey(sql, newKey, now: now)
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
}
