import FoyerStorage
import FoyerTestSupport
import SQLKit
import Synchronization

/// An error a test body throws on purpose.
struct IntentionalFailure: Error, Equatable {}

/// A thread-safe counter a `@Sendable` migration closure can bump.
final class Counter: Sendable {
    private let value = Mutex(0)

    @discardableResult
    func increment() -> Int {
        self.value.withLock {
            $0 += 1; return $0
        }
    }

    var current: Int { self.value.withLock { $0 } }

    func reset() { self.value.withLock { $0 = 0 } }
}

/// Number of rows in `table`.
func rowCount(_ database: FoyerDatabase, _ table: String) async throws -> Int {
    try await database.withConnection { sql in
        try await sql.raw("SELECT COUNT(*) AS n FROM \(ident: table)").first()!.decode(column: "n", as: Int.self)
    }
}

/// Whether `table` exists (a SELECT from it succeeds).
func tableExists(_ database: FoyerDatabase, _ table: String) async -> Bool {
    do {
        _ = try await rowCount(database, table)
        return true
    } catch {
        return false
    }
}

/// Opens another handle on the same database (another replica, or the same service after a restart).
func reopen(
    _ database: FoyerDatabase,
    adjusting adjust: (inout DatabaseConfiguration) -> Void = { _ in }
) async throws -> FoyerDatabase {
    var configuration = database.configuration
    adjust(&configuration)
    return try await FoyerDatabase.open(configuration, logger: testDatabaseLogger)
}

/// A table `items (id BIGINT PRIMARY KEY, label TEXT NOT NULL UNIQUE)` for transaction tests.
let itemsMigration = Migration(
    version: 1,
    name: "create items",
    statements: [
        "CREATE TABLE items (id BIGINT PRIMARY KEY, label TEXT NOT NULL UNIQUE)"
    ]
)

func insertItem(_ sql: any SQLDatabase, id: Int, label: String) async throws {
    try await sql.raw("INSERT INTO items (id, label) VALUES (\(bind: id), \(bind: label))").run()
}

/// Runs `body` and captures its outcome, so cleanup can run before the error is rethrown.
func capturing<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
    do {
        return .success(try await body())
    } catch {
        return .failure(error)
    }
}
