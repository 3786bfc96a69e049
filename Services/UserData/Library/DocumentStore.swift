import Foundation
import FoyerAPI
import FoyerStorage
import Logging
import NIOCore
import SQLKit
import Synchronization

/// user-data's tables and the transactions over them. Several processes may share a PostgreSQL database.
///
/// Tables (Services/UserData/README.md describes each column):
/// - `ud_documents`: (uid, collection, doc_key) → body, with its size, version and update time. Collections and
///   keys sort bytewise on both engines (`COLLATE "C"` on PostgreSQL, SQLite's default BINARY).
/// - `ud_merge_ops`: one row per merge op id: the pair, the policy, whether it is done, and its running totals.
/// - `ud_merge_conflicts`: every conflict a merge resolved, in order, for its report.
/// - `ud_deleted_uids`: a tombstone per deleted uid, which refuses its writes until it expires.
/// - `ud_put_ops`: the result of each `putOnce` op, per uid, for its retries.
///
/// Merge records, tombstones and put records are pruned after their retention (`DocumentStore+Retention.swift`).
///
/// Writers of one uid and a merge or deleteAll of it exclude each other on PostgreSQL with transaction-scoped
/// advisory locks keyed by the uid (shared for single-document writes, exclusive for merge and deleteAll batches);
/// on SQLite, transactions already run one at a time.
final class DocumentStore: Sendable {
    let database: FoyerDatabase
    let configuration: UserDataConfiguration
    let logger: Logger
    /// Counts `putOnce` calls, so that expired records are pruned every `maintenanceInterval` of them.
    let calls = Atomic<UInt64>(0)

    static let serviceName = "user-data"

    init(database: FoyerDatabase, configuration: UserDataConfiguration, logger: Logger) {
        self.database = database
        self.configuration = configuration
        self.logger = logger
    }

    static let migrations: [Migration] = [
        Migration(version: 1, name: "documents, merge ops, merge conflicts") { engine in
            // Bytewise order for collections and keys on both engines (SQLite's default collation is memcmp).
            let bytewise = engine == .postgres ? " COLLATE \"C\"" : ""
            return [
                """
                CREATE TABLE ud_documents (
                    uid TEXT NOT NULL,
                    collection TEXT\(bytewise) NOT NULL,
                    doc_key TEXT\(bytewise) NOT NULL,
                    body \(engine.binaryColumnType) NOT NULL,
                    body_size BIGINT NOT NULL,
                    version BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    PRIMARY KEY (uid, collection, doc_key)
                )
                """,
                """
                CREATE TABLE ud_merge_ops (
                    op TEXT PRIMARY KEY,
                    from_uid TEXT NOT NULL,
                    to_uid TEXT NOT NULL,
                    policy BIGINT NOT NULL,
                    done BOOLEAN NOT NULL,
                    moved BIGINT NOT NULL,
                    conflicts BIGINT NOT NULL,
                    kept_account BIGINT NOT NULL,
                    kept_guest BIGINT NOT NULL,
                    kept_both BIGINT NOT NULL,
                    started_at BIGINT NOT NULL,
                    finished_at BIGINT
                )
                """,
                "CREATE INDEX ud_merge_ops_from_uid ON ud_merge_ops (from_uid)",
                "CREATE INDEX ud_merge_ops_to_uid ON ud_merge_ops (to_uid)",
                """
                CREATE TABLE ud_merge_conflicts (
                    op TEXT NOT NULL,
                    seq BIGINT NOT NULL,
                    collection TEXT NOT NULL,
                    doc_key TEXT NOT NULL,
                    resolution BIGINT NOT NULL,
                    derived_key TEXT,
                    PRIMARY KEY (op, seq)
                )
                """,
            ]
        },
        Migration(version: 2, name: "deletion tombstones, put records, merge ops by start") { engine in
            [
                """
                CREATE TABLE ud_deleted_uids (
                    uid TEXT PRIMARY KEY,
                    deleted_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX ud_deleted_uids_deleted_at ON ud_deleted_uids (deleted_at)",
                """
                CREATE TABLE ud_put_ops (
                    uid TEXT NOT NULL,
                    op TEXT NOT NULL,
                    attempt TEXT NOT NULL,
                    request_digest \(engine.binaryColumnType) NOT NULL,
                    version BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    recorded_at BIGINT NOT NULL,
                    PRIMARY KEY (uid, op)
                )
                """,
                "CREATE INDEX ud_put_ops_recorded_at ON ud_put_ops (recorded_at)",
                "CREATE INDEX ud_merge_ops_started_at ON ud_merge_ops (started_at)",
            ]
        },
    ]

    func migrate() async throws {
        try await database.migrate(service: Self.serviceName, migrations: Self.migrations)
    }

    /// A read-modify-write transaction, retried on deadlocks and serialization failures.
    func write<T>(_ body: (any SQLDatabase) async throws -> T) async throws -> T {
        try await database.transaction(retryingSerializationFailures: 3) { sql in try await body(sql) }
    }

    // MARK: Locks and guards

    /// Takes the advisory locks of `uids` (PostgreSQL; nothing on SQLite), in a fixed order so that two merges
    /// cannot deadlock on them. Released at COMMIT or ROLLBACK.
    func lockUsers(_ sql: any SQLDatabase, _ uids: [String], exclusive: Bool) async throws {
        guard sql.engineKind == .postgres else { return }
        let function = exclusive ? "pg_advisory_xact_lock" : "pg_advisory_xact_lock_shared"
        for uid in Set(uids).sorted() {
            try await sql.raw("SELECT \(unsafeRaw: function)(\(bind: Self.lockKey(uid)))").run()
        }
    }

    /// FNV-1a of the uid under a prefix of this service, as the signed 64-bit key PostgreSQL takes.
    static func lockKey(_ uid: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "user-data/uid/\(uid)".utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }

    /// Refuses writes to a uid whose documents were deleted (its tombstone is still there) or that was merged (or
    /// is being merged) into an account.
    func checkWritable(_ sql: any SQLDatabase, _ uid: String) async throws {
        try await checkNotDeleted(sql, uid)
        let merged = try await sql.raw("SELECT op FROM ud_merge_ops WHERE from_uid = \(bind: uid) LIMIT 1").first()
        if merged != nil {
            throw UserDataError.uidMerged("uid \(uid) was merged into an account and takes no more writes")
        }
    }

    /// Refuses a uid that `deleteAll` deleted (or is deleting) while its tombstone lasts.
    func checkNotDeleted(_ sql: any SQLDatabase, _ uid: String) async throws {
        let deleted = try await sql.raw("SELECT uid FROM ud_deleted_uids WHERE uid = \(bind: uid)").first()
        if deleted != nil {
            throw UserDataError.uidDeleted("the documents of uid \(uid) were deleted; it takes no more writes")
        }
    }

    /// The document's version, 0 when it does not exist.
    func currentVersion(_ sql: any SQLDatabase, uid: String, collection: String, key: String) async throws -> Int64 {
        try await sql.raw(
            """
            SELECT version FROM ud_documents
            WHERE uid = \(bind: uid) AND collection = \(bind: collection) AND doc_key = \(bind: key)
            """
        ).first(decodingColumn: "version", as: Int64.self) ?? 0
    }

    /// Reads the columns of a full document row.
    static func document(from row: any SQLRow) throws -> StoredDocument {
        StoredDocument(
            collection: try row.decode(column: "collection", as: String.self),
            key: try row.decode(column: "doc_key", as: String.self),
            value: try row.decode(column: "body", as: ByteBuffer.self),
            version: UInt64(max(0, try row.decode(column: "version", as: Int64.self))),
            updatedAtMicroseconds: try row.decode(column: "updated_at", as: Int64.self)
        )
    }
}
