public import Foundation
public import SQLKit

/// One schema change of one service.
///
/// Versions are positive integers, unique per service, applied in ascending order; a version is never edited or
/// reused once released. Each migration runs in its own transaction (DDL is transactional on both engines), so a
/// failing migration leaves nothing behind. On PostgreSQL avoid statements that cannot run in a transaction
/// (`CREATE INDEX CONCURRENTLY`, `ALTER TYPE ... ADD VALUE` before 12).
///
/// Portable column types: BIGINT, TEXT, BOOLEAN, DOUBLE PRECISION; bytes via `binaryColumnType`
/// (BLOB / BYTEA); time as BIGINT microseconds since the epoch.
///
/// ```swift
/// static let migrations = [
///     Migration(version: 1, name: "create accounts") { engine in [
///         "CREATE TABLE accounts (id TEXT PRIMARY KEY, secret_hash \(engine.binaryColumnType) NOT NULL, created_at BIGINT NOT NULL)",
///         "CREATE INDEX accounts_created_at ON accounts (created_at)",
///     ] },
///     Migration(version: 2, name: "add display name", statements: ["ALTER TABLE accounts ADD COLUMN display_name TEXT"]),
/// ]
/// ```
public struct Migration: Sendable {
    public let version: Int
    public let name: String
    let apply: @Sendable (any SQLDatabase) async throws -> Void

    /// A migration made of SQL statements that are the same on both engines, run in order.
    public init(version: Int, name: String, statements: [String]) {
        self.init(version: version, name: name) { _ in statements }
    }

    /// A migration whose statements depend on the engine (e.g. `engine.binaryColumnType`), run in order.
    public init(version: Int, name: String, statements: @escaping @Sendable (DatabaseEngineKind) -> [String]) {
        self.init(
            version: version,
            name: name,
            apply: { sql in
                for statement in statements(sql.engineKind) {
                    try await sql.raw(SQLQueryString(statement)).run()
                }
            }
        )
    }

    /// A migration written as code on the transaction's connection (e.g. to transform data).
    public init(version: Int, name: String, apply: @escaping @Sendable (any SQLDatabase) async throws -> Void) {
        self.version = version
        self.name = name
        self.apply = apply
    }
}

/// A migration recorded in `foyer_migrations`.
public struct AppliedMigration: Sendable, Equatable {
    public let version: Int
    public let name: String
    public let appliedAt: Date
}

extension FoyerDatabase {
    /// The table that records applied migrations, shared by all services of a database.
    public static let migrationsTable = "foyer_migrations"

    /// Brings the schema of `service` up to date: applies, in ascending version order and each in its own
    /// transaction, every migration not yet recorded, and records it (`service, version, name, applied_at`).
    ///
    /// - Safe when several replicas start at once against one PostgreSQL: each step holds
    ///   `pg_advisory_xact_lock(hash(service))`, so a migration is applied exactly once and the others wait and then
    ///   see it recorded. On SQLite `BEGIN IMMEDIATE` serialises the steps.
    /// - Refuses to go on (throws, nothing changed) if the database records a version newer than the newest in
    ///   `migrations` (``FoyerStorageError/schemaNewerThanCode(service:databaseVersion:newestKnownVersion:)``), a
    ///   recorded version missing from `migrations`, or an unapplied version older than an applied one.
    /// - A migration that throws is rolled back, stays unrecorded, and is reported as
    ///   ``FoyerStorageError/migrationFailed(service:version:name:underlying:)``; earlier steps stay applied.
    public func migrate(service: String, migrations: [Migration]) async throws {
        let ordered = try Self.validated(service: service, migrations: migrations)
        try await self.createMigrationsTable()
        while let applied = try await self.applyNextMigration(service: service, ordered: ordered) {
            self.logger.info(
                "Applied migration",
                metadata: [
                    "service": "\(service)", "version": "\(applied.version)", "name": "\(applied.name)",
                ]
            )
        }
    }

    /// The migrations recorded for `service`, oldest first (empty if none, or if the table does not exist yet).
    public func appliedMigrations(service: String) async throws -> [AppliedMigration] {
        try await self.createMigrationsTable()
        return try await self.withConnection { sql in
            try await Self.recordedMigrations(sql, service: service)
        }
    }

    private static func validated(service: String, migrations: [Migration]) throws -> [Migration] {
        guard !service.isEmpty else {
            throw FoyerStorageError.invalidMigrations(service: service, detail: "the service name is empty")
        }
        var seen = Set<Int>()
        for migration in migrations {
            guard migration.version > 0 else {
                throw FoyerStorageError.invalidMigrations(
                    service: service,
                    detail: "version \(migration.version) is not positive"
                )
            }
            guard seen.insert(migration.version).inserted else {
                throw FoyerStorageError.invalidMigrations(
                    service: service,
                    detail: "version \(migration.version) appears twice"
                )
            }
            guard !migration.name.isEmpty else {
                throw FoyerStorageError.invalidMigrations(
                    service: service,
                    detail: "version \(migration.version) has an empty name"
                )
            }
        }
        return migrations.sorted { $0.version < $1.version }
    }

    private func createMigrationsTable() async throws {
        try await self.transaction { sql in
            // Two services (or replicas) creating the table at once can collide on PostgreSQL's catalog even with
            // IF NOT EXISTS: serialise the creation under one database-wide lock.
            try await Self.lockIfPostgres(sql, key: "foyer_migrations")
            try await sql.raw(
                """
                CREATE TABLE IF NOT EXISTS \(ident: Self.migrationsTable) (
                    service TEXT NOT NULL,
                    version BIGINT NOT NULL,
                    name TEXT NOT NULL,
                    applied_at BIGINT NOT NULL,
                    PRIMARY KEY (service, version)
                )
                """
            ).run()
        }
    }

    /// One step: under the service's lock, check the history and apply the first unrecorded migration.
    /// Returns it, or `nil` when the schema is up to date.
    private func applyNextMigration(service: String, ordered: [Migration]) async throws -> Migration? {
        try await self.transaction { sql in
            try await Self.lockIfPostgres(sql, key: "foyer_migrations/\(service)")
            let recorded = try await Self.recordedMigrations(sql, service: service)
            let newestKnown = ordered.last?.version ?? 0
            if let newestRecorded = recorded.last?.version, newestRecorded > newestKnown {
                throw FoyerStorageError.schemaNewerThanCode(
                    service: service,
                    databaseVersion: newestRecorded,
                    newestKnownVersion: newestKnown
                )
            }
            let known = Set(ordered.map(\.version))
            if let unknown = recorded.first(where: { !known.contains($0.version) }) {
                throw FoyerStorageError.migrationHistoryMismatch(
                    service: service,
                    detail:
                        "the database records version \(unknown.version) '\(unknown.name)', which the code does not have"
                )
            }
            let recordedVersions = Set(recorded.map(\.version))
            guard let next = ordered.first(where: { !recordedVersions.contains($0.version) }) else {
                return nil
            }
            if let newestRecorded = recorded.last, newestRecorded.version > next.version {
                throw FoyerStorageError.migrationHistoryMismatch(
                    service: service,
                    detail:
                        "version \(next.version) '\(next.name)' is not applied but the later version \(newestRecorded.version) is; add new migrations with versions above \(newestRecorded.version)"
                )
            }
            do {
                try await next.apply(sql)
            } catch {
                throw FoyerStorageError.migrationFailed(
                    service: service,
                    version: next.version,
                    name: next.name,
                    underlying: String(reflecting: error)
                )
            }
            try await sql.raw(
                """
                INSERT INTO \(ident: Self.migrationsTable) (service, version, name, applied_at)
                VALUES (\(bind: service), \(bind: next.version), \(bind: next.name), \(SQLTimestamp(Date())))
                """
            ).run()
            return next
        }
    }

    private static func recordedMigrations(_ sql: any SQLDatabase, service: String) async throws -> [AppliedMigration] {
        try await sql.raw(
            """
            SELECT version, name, applied_at FROM \(ident: Self.migrationsTable)
            WHERE service = \(bind: service) ORDER BY version
            """
        ).all().map { row in
            AppliedMigration(
                version: try row.decode(column: "version", as: Int.self),
                name: try row.decode(column: "name", as: String.self),
                appliedAt: try row.decodeDate(column: "applied_at")
            )
        }
    }

    /// `pg_advisory_xact_lock` on a stable 64-bit key (FNV-1a of `key`), released at COMMIT/ROLLBACK.
    /// SQLite needs none: `BEGIN IMMEDIATE` already excludes other writers.
    private static func lockIfPostgres(_ sql: any SQLDatabase, key: String) async throws {
        guard sql.engineKind == .postgres else { return }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        try await sql.raw("SELECT pg_advisory_xact_lock(\(bind: Int64(bitPattern: hash)))").run()
    }
}
