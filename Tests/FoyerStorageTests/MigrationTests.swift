import FoyerStorage
import FoyerTestSupport
import SQLKit
import Testing

@Suite("Migrations")
struct MigrationTests {
    static let service = "accounts"

    static func accountsMigrations(engine: DatabaseEngineKind? = nil) -> [Migration] {
        [
            Migration(version: 1, name: "create accounts") { engine in
                [
                    "CREATE TABLE accounts (id TEXT PRIMARY KEY, secret \(engine.binaryColumnType) NOT NULL, created_at BIGINT NOT NULL)"
                ]
            },
            Migration(
                version: 2,
                name: "index accounts by creation",
                statements: [
                    "CREATE INDEX accounts_created_at ON accounts (created_at)"
                ]
            ),
        ]
    }

    @Test("migrations apply in order, once, and are recorded", arguments: TestEngine.allCases)
    func migrationsApplyOnceAndAreRecorded(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { db in
            try await db.migrate(service: Self.service, migrations: Self.accountsMigrations())

            let applied = try await db.appliedMigrations(service: Self.service)
            #expect(applied.map(\.version) == [1, 2])
            #expect(applied.map(\.name) == ["create accounts", "index accounts by creation"])
            #expect(try await rowCount(db, "accounts") == 0)
            #expect(try await db.appliedMigrations(service: "another-service").isEmpty)
        }
    }

    @Test("running migrate again is a no-op", arguments: TestEngine.allCases)
    func rerunIsANoOp(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { db in
            let runs = Counter()
            let migrations = [
                Migration(version: 1, name: "create log", statements: ["CREATE TABLE log (entry TEXT NOT NULL)"]),
                Migration(version: 2, name: "seed log") { sql in
                    runs.increment()
                    try await sql.raw("INSERT INTO log (entry) VALUES (\(bind: "seeded"))").run()
                },
            ]
            try await db.migrate(service: Self.service, migrations: migrations)
            let first = try await db.appliedMigrations(service: Self.service)

            try await db.migrate(service: Self.service, migrations: migrations)
            try await db.migrate(service: Self.service, migrations: migrations)

            #expect(runs.current == 1)
            #expect(try await rowCount(db, "log") == 1)
            #expect(try await db.appliedMigrations(service: Self.service) == first)
        }
    }

    @Test("a new migration added later is the only one applied", arguments: TestEngine.allCases)
    func laterMigrationIsAppliedAlone(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { db in
            let firstRuns = Counter()
            let first = Migration(version: 1, name: "create log") { sql in
                firstRuns.increment()
                try await sql.raw("CREATE TABLE log (entry TEXT NOT NULL)").run()
            }
            try await db.migrate(service: Self.service, migrations: [first])
            try await db.migrate(
                service: Self.service,
                migrations: [
                    first,
                    Migration(version: 2, name: "add level", statements: ["ALTER TABLE log ADD COLUMN level BIGINT"]),
                ]
            )
            #expect(firstRuns.current == 1)
            #expect(try await db.appliedMigrations(service: Self.service).map(\.version) == [1, 2])
        }
    }

    @Test("a database with a newer recorded version than the code knows is refused", arguments: TestEngine.allCases)
    func newerRecordedVersionIsRefused(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { db in
            let newer =
                Self.accountsMigrations() + [
                    Migration(
                        version: 3,
                        name: "add display name",
                        statements: ["ALTER TABLE accounts ADD COLUMN display_name TEXT"]
                    )
                ]
            try await db.migrate(service: Self.service, migrations: newer)

            // The service is rolled back to a build that knows only versions 1 and 2.
            let error = await #expect(throws: FoyerStorageError.self) {
                try await db.migrate(service: Self.service, migrations: Self.accountsMigrations())
            }
            #expect(error == .schemaNewerThanCode(service: Self.service, databaseVersion: 3, newestKnownVersion: 2))
            #expect(error.map { "\($0)" }?.contains("refusing to start") == true)
            #expect(try await db.appliedMigrations(service: Self.service).map(\.version) == [1, 2, 3])
        }
    }

    @Test("a failing migration rolls back entirely and stays unrecorded", arguments: TestEngine.allCases)
    func failingMigrationRollsBack(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { db in
            let good = Migration(version: 1, name: "create log", statements: ["CREATE TABLE log (entry TEXT NOT NULL)"])
            let broken = Migration(
                version: 2,
                name: "half done",
                statements: [
                    "CREATE TABLE half_done (id BIGINT PRIMARY KEY)",
                    "INSERT INTO log (entry) VALUES ('written before the failure')",
                    "INSERT INTO no_such_table (id) VALUES (1)",
                ]
            )

            let error = await #expect(throws: FoyerStorageError.self) {
                try await db.migrate(service: Self.service, migrations: [good, broken])
            }
            guard case .migrationFailed(let service, let version, let name, _) = error else {
                Issue.record("expected migrationFailed, got \(String(describing: error))")
                return
            }
            #expect(service == Self.service && version == 2 && name == "half done")

            #expect(try await db.appliedMigrations(service: Self.service).map(\.version) == [1])
            #expect(await tableExists(db, "half_done") == false)
            #expect(try await rowCount(db, "log") == 0)

            // Fixed in the next build: it applies cleanly.
            let fixed = Migration(
                version: 2,
                name: "half done",
                statements: ["CREATE TABLE half_done (id BIGINT PRIMARY KEY)"]
            )
            try await db.migrate(service: Self.service, migrations: [good, fixed])
            #expect(try await db.appliedMigrations(service: Self.service).map(\.version) == [1, 2])
            #expect(await tableExists(db, "half_done"))
        }
    }

    @Test("replicas migrating concurrently apply each migration exactly once", arguments: TestEngine.allCases)
    func concurrentMigrateAppliesOnce(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { db in
            let seedRuns = Counter()
            let migrations = [
                // No IF NOT EXISTS: a second application would fail.
                Migration(version: 1, name: "create log", statements: ["CREATE TABLE log (entry TEXT NOT NULL)"]),
                Migration(version: 2, name: "seed log") { sql in
                    seedRuns.increment()
                    try await sql.raw("INSERT INTO log (entry) VALUES (\(bind: "seeded"))").run()
                },
                Migration(version: 3, name: "create other", statements: ["CREATE TABLE other (id BIGINT PRIMARY KEY)"]),
            ]
            var replicas = [db]
            for _ in 0..<3 { replicas.append(try await reopen(db)) }

            let outcome = await capturing {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for replica in replicas {
                        group.addTask { try await replica.migrate(service: Self.service, migrations: migrations) }
                    }
                    try await group.waitForAll()
                }
            }
            for replica in replicas.dropFirst() { try await replica.close() }
            try outcome.get()

            #expect(seedRuns.current == 1)
            #expect(try await rowCount(db, "log") == 1)
            #expect(try await db.appliedMigrations(service: Self.service).map(\.version) == [1, 2, 3])
        }
    }

    @Test("services sharing a database keep separate migration histories", arguments: TestEngine.allCases)
    func servicesHaveSeparateHistories(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { db in
            try await db.migrate(
                service: "accounts",
                migrations: [
                    Migration(
                        version: 1,
                        name: "accounts table",
                        statements: ["CREATE TABLE accounts (id TEXT PRIMARY KEY)"]
                    )
                ]
            )
            try await db.migrate(
                service: "sessions",
                migrations: [
                    Migration(
                        version: 1,
                        name: "sessions table",
                        statements: ["CREATE TABLE sessions (id TEXT PRIMARY KEY)"]
                    ),
                    Migration(
                        version: 2,
                        name: "sessions expiry",
                        statements: ["ALTER TABLE sessions ADD COLUMN expires_at BIGINT"]
                    ),
                ]
            )
            #expect(try await db.appliedMigrations(service: "accounts").map(\.version) == [1])
            #expect(try await db.appliedMigrations(service: "sessions").map(\.version) == [1, 2])
        }
    }

    @Test(
        "a recorded version missing from the code, or a gap below an applied version, is refused",
        arguments: TestEngine.allCases
    )
    func historyMismatchIsRefused(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { db in
            let one = Migration(version: 1, name: "one", statements: ["CREATE TABLE one (id BIGINT)"])
            let two = Migration(version: 2, name: "two", statements: ["CREATE TABLE two (id BIGINT)"])
            let three = Migration(version: 3, name: "three", statements: ["CREATE TABLE three (id BIGINT)"])

            try await db.migrate(service: "dropped", migrations: [one, two])
            await #expect {
                try await db.migrate(service: "dropped", migrations: [one, three])
            } throws: { error in
                guard case FoyerStorageError.migrationHistoryMismatch = error else { return false }
                return true
            }

            try await db.migrate(
                service: "gap",
                migrations: [
                    Migration(version: 1, name: "one", statements: ["CREATE TABLE gap_one (id BIGINT)"]),
                    Migration(version: 3, name: "three", statements: ["CREATE TABLE gap_three (id BIGINT)"]),
                ]
            )
            await #expect {
                try await db.migrate(
                    service: "gap",
                    migrations: [
                        Migration(version: 1, name: "one", statements: ["CREATE TABLE gap_one (id BIGINT)"]),
                        Migration(version: 2, name: "two", statements: ["CREATE TABLE gap_two (id BIGINT)"]),
                        Migration(version: 3, name: "three", statements: ["CREATE TABLE gap_three (id BIGINT)"]),
                    ]
                )
            } throws: { error in
                guard case FoyerStorageError.migrationHistoryMismatch = error else { return false }
                return true
            }
            #expect(await tableExists(db, "gap_two") == false)
        }
    }

    @Test("an invalid migration list is rejected before anything runs", arguments: TestEngine.allCases)
    func invalidMigrationListIsRejected(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { db in
            let duplicate = [
                Migration(version: 1, name: "a", statements: ["CREATE TABLE a (id BIGINT)"]),
                Migration(version: 1, name: "b", statements: ["CREATE TABLE b (id BIGINT)"]),
            ]
            await #expect {
                try await db.migrate(service: Self.service, migrations: duplicate)
            } throws: { error in
                guard case FoyerStorageError.invalidMigrations = error else { return false }
                return true
            }
            await #expect(throws: FoyerStorageError.self) {
                try await db.migrate(
                    service: Self.service,
                    migrations: [Migration(version: 0, name: "zero", statements: [])]
                )
            }
            #expect(await tableExists(db, "a") == false)
        }
    }
}
