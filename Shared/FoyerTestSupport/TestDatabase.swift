// Test databases for store tests: every store test runs on both engines.
//
//     @Test(arguments: TestEngine.allCases)
//     func createsAccount(engine: TestEngine) async throws {
//         try await withTestDatabase(engine) { db in
//             try await db.migrate(service: "accounts", migrations: AccountStore.migrations)
//             ...
//         }
//     }
//
// PostgreSQL comes from FOYER_TEST_POSTGRES_URL, which `make test` sets after starting a throwaway server with
// scripts/throwaway-postgres.sh. Without it the PostgreSQL case fails (never skips): a store must pass on both.

import Foundation
public import FoyerStorage
public import Logging
import SQLKit

/// The engines every store test runs on.
public enum TestEngine: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite
    case postgres

    public var description: String { self.rawValue }
}

/// Why a test database could not be provided.
public enum TestDatabaseError: Error, CustomStringConvertible {
    case postgresURLMissing

    public var description: String {
        switch self {
        case .postgresURLMissing:
            "\(postgresURLVariable) is not set, so the PostgreSQL variant of this test cannot run. Run the tests through `make test`, which starts a throwaway PostgreSQL (scripts/throwaway-postgres.sh) and exports the variable; or by hand: export \(postgresURLVariable)=$(scripts/throwaway-postgres.sh start /tmp/foyer-pg) and later scripts/throwaway-postgres.sh stop /tmp/foyer-pg"
        }
    }
}

/// The environment variable holding the URL of the throwaway test server, e.g.
/// `postgres://postgres@127.0.0.1:54321/foyer_test`.
public let postgresURLVariable = "FOYER_TEST_POSTGRES_URL"

/// The logger test databases log to (quiet unless FOYER_TEST_LOG_LEVEL is set; see TestLogging). Stores' tests can
/// pass it without depending on swift-log.
public let testDatabaseLogger = TestLogging.logger("foyer.test.database")

/// Limits for test databases: small pools, because many tests run in parallel against one server.
public func testDatabaseLimits() -> DatabaseConfiguration.Limits {
    var limits = DatabaseConfiguration.Limits()
    limits.postgresPoolSize = 4
    limits.sqliteReaderCount = 2
    limits.acquireTimeout = .seconds(60)
    return limits
}

/// Runs `body` with a fresh, empty database on `engine`, then closes and deletes it (also when `body` throws).
///
/// - SQLite: a new file in a new temporary directory, removed afterwards.
/// - PostgreSQL: a new schema `foyer_test_<random>` in the database of `FOYER_TEST_POSTGRES_URL` (the database's
///   connections use it as `search_path`), dropped with CASCADE afterwards. Throws
///   ``TestDatabaseError/postgresURLMissing`` when the variable is unset.
///
/// `db.configuration` opens the same database again (`FoyerDatabase.open(db.configuration, ...)`), e.g. to
/// simulate a second replica or a restart; close such handles before `body` returns.
nonisolated(nonsending) public func withTestDatabase<T>(
    _ engine: TestEngine,
    logger: Logger = testDatabaseLogger,
    _ body: nonisolated(nonsending) (FoyerDatabase) async throws -> T
) async throws -> T {
    switch engine {
    case .sqlite:
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("foyer-test-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = try DatabaseConfiguration.parse(
            "sqlite:test.sqlite",
            dataDirectory: directory.path,
            defaultFileName: "test.sqlite"
        )
        configuration.limits = testDatabaseLimits()
        return try await withOpenDatabase(configuration, logger: logger, body)

    case .postgres:
        guard let url = ProcessInfo.processInfo.environment[postgresURLVariable], !url.isEmpty else {
            throw TestDatabaseError.postgresURLMissing
        }
        var configuration = try DatabaseConfiguration.parse(url, dataDirectory: "", defaultFileName: "")
        configuration.limits = testDatabaseLimits()
        configuration.limits.postgresPoolSize = 2
        let schema = "foyer_test_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"

        let admin = try await FoyerDatabase.open(configuration, logger: logger)
        do {
            try await admin.transaction { sql in try await sql.raw("CREATE SCHEMA \(ident: schema)").run() }
            configuration.postgresSchema = schema
            configuration.limits = testDatabaseLimits()
            let result: T
            do {
                result = try await withOpenDatabase(configuration, logger: logger, body)
            } catch {
                try? await admin.transaction { sql in try await sql.raw("DROP SCHEMA \(ident: schema) CASCADE").run() }
                throw error
            }
            try await admin.transaction { sql in try await sql.raw("DROP SCHEMA \(ident: schema) CASCADE").run() }
            try await admin.close()
            return result
        } catch {
            try? await admin.close()
            throw error
        }
    }
}

nonisolated(nonsending) private func withOpenDatabase<T>(
    _ configuration: DatabaseConfiguration,
    logger: Logger,
    _ body: nonisolated(nonsending) (FoyerDatabase) async throws -> T
) async throws -> T {
    let database = try await FoyerDatabase.open(configuration, logger: logger)
    let result: T
    do {
        result = try await body(database)
    } catch {
        try? await database.close()
        throw error
    }
    try await database.close()
    return result
}
