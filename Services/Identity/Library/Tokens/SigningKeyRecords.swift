import Foundation
import FoyerCrypto
import FoyerStorage
import SQLKit

/// The rows of `identity_signing_keys` and how their keys are stored: `algorithm` says which kind of key
/// `private_key` holds (the Ed25519 seed for EdDSA, SEC 1 DER for ES256, PKCS #1 DER for RS256:
/// ``JWTSigningKey/storedRepresentation``), sealed with the key-encryption key (KEK) when one is configured
/// (`private_key` is AES-256-GCM `nonce ‖ ciphertext ‖ tag`, `kek_id` names the KEK), in clear otherwise (`kek_id`
/// NULL).
struct SigningKeyRecords: Sendable {
    /// One row as stored.
    struct Row: Sendable {
        let keyID: String
        let algorithm: String
        let storedKey: [UInt8]
        let kekID: String?
        let createdAt: Date
        let retiredAt: Date?
    }

    /// The KEK new rows are sealed with; nil keeps them in clear.
    let current: SigningKeyEncryptionKey?
    /// A KEK rows may still be sealed with, which start-up re-seals with `current`.
    let previous: SigningKeyEncryptionKey?

    /// The key of a row, opened with the KEK its `kek_id` names.
    ///
    /// - Throws: ``IdentityConfigurationError`` naming both KEKs when the row is sealed by a KEK this identity does
    ///   not have (or by any, when it has none), or naming the algorithm when it is not one identity signs with.
    func privateKey(of row: Row) throws -> JWTSigningKey {
        guard let algorithm = JWSAlgorithm(rawValue: row.algorithm) else {
            throw IdentityConfigurationError(
                "the signing key \(row.keyID) is for the algorithm \(row.algorithm), which this identity does not know"
            )
        }
        guard let kekID = row.kekID else {
            return try JWTSigningKey(algorithm: algorithm, storedRepresentation: row.storedKey)
        }
        for kek in [current, previous].compactMap({ $0 }) where kek.id == kekID {
            var stored = try kek.open(row.storedKey, keyID: row.keyID)
            defer { stored.withUnsafeMutableBytes { _ = $0.initializeMemory(as: UInt8.self, repeating: 0) } }
            return try JWTSigningKey(algorithm: algorithm, storedRepresentation: stored)
        }
        guard let current else {
            throw IdentityConfigurationError(
                """
                the signing key \(row.keyID) is sealed with the key-encryption key \(kekID), and identity has no \
                key-encryption key: give that one with --signing-key-encryption-key-file \
                (FOYER_SIGNING_KEY_ENCRYPTION_KEY_FILE)
                """
            )
        }
        throw IdentityConfigurationError(
            """
            the signing key \(row.keyID) is sealed with the key-encryption key \(kekID), not with the configured \
            one (\(current.id)): start with the key that sealed it, or give that one as \
            --previous-signing-key-encryption-key-file to re-seal the keys with \(current.id)
            """
        )
    }

    /// Every row, oldest first.
    static func read(_ sql: any SQLDatabase) async throws -> [Row] {
        try await sql.raw(
            """
            SELECT kid, algorithm, private_key, kek_id, created_at, retired_at FROM identity_signing_keys
            ORDER BY created_at, kid
            """
        ).all().map { row in
            Row(
                keyID: try row.decode(column: "kid", as: String.self),
                algorithm: try row.decode(column: "algorithm", as: String.self),
                storedKey: try row.decodeBytes(column: "private_key"),
                kekID: try row.decode(column: "kek_id", as: String?.self),
                createdAt: try row.decodeDate(column: "created_at"),
                retiredAt: try row.decodeOptionalDate(column: "retired_at")
            )
        }
    }

    /// Creates a new unretired key for `algorithm`, sealed if there is a KEK. Returns its key id.
    ///
    /// The key is generated before the call, outside any transaction: an RSA key takes a noticeable time to make.
    @discardableResult
    func insertNewKey(_ sql: any SQLDatabase, _ key: JWTSigningKey, now: Date) async throws -> String {
        let keyID = key.verificationKey.derivedKeyID
        let clear = try key.storedRepresentation
        let stored = try current.map { try $0.seal(clear, keyID: keyID) } ?? clear
        let kekID: SQLQueryString = current.map { "\(bind: $0.id)" } ?? "NULL"
        try await sql.raw(
            """
            INSERT INTO identity_signing_keys (kid, algorithm, private_key, kek_id, created_at, retired_at)
            VALUES (\(bind: keyID), \(bind: key.algorithm.rawValue), \(SQLBytes(stored)), \(kekID), \(SQLTimestamp(now)),
                NULL)
            """
        ).run()
        return keyID
    }

    /// Seals every row kept in clear or sealed with the previous KEK with the current one, in one transaction. The
    /// UPDATE of each row is conditional on what was read, so when replicas start together each row is sealed
    /// once and the others' UPDATEs change nothing. Returns how many rows this call sealed.
    ///
    /// - Throws: ``IdentityConfigurationError`` for a row sealed with a KEK this identity does not have, before
    ///   any change (the transaction rolls back).
    func sealStoredKeys(_ database: FoyerDatabase) async throws -> Int {
        guard let current else { return 0 }
        return try await database.transaction { sql in
            var sealed = 0
            for row in try await Self.read(sql) where row.kekID != current.id {
                let stored = try current.seal(try privateKey(of: row).storedRepresentation, keyID: row.keyID)
                let previousCondition: SQLQueryString =
                    row.kekID.map { "kek_id = \(bind: $0)" } ?? "kek_id IS NULL"
                let changed = try await sql.raw(
                    """
                    UPDATE identity_signing_keys SET private_key = \(SQLBytes(stored)), kek_id = \(bind: current.id)
                    WHERE kid = \(bind: row.keyID) AND \(previousCondition)
                    RETURNING kid
                    """
                ).all()
                sealed += changed.count
            }
            return sealed
        }
    }

    /// The ids of the KEKs that sealed some row.
    static func kekIDs(_ sql: any SQLDatabase) async throws -> [String] {
        try await sql.raw("SELECT DISTINCT kek_id FROM identity_signing_keys WHERE kek_id IS NOT NULL").all().map {
            try $0.decode(column: "kek_id", as: String.self)
        }
    }
}
