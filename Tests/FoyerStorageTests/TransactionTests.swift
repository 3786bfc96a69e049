import FoyerStorage
import FoyerTestSupport
import SQLKit
import Testing

@Suite("Transactions")
struct TransactionTests {
    @Test("a transaction commits and returns the body's result", arguments: TestEngine.allCases)
    func transactionCommits(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { db in
            try await db.migrate(service: "test", migrations: [itemsMigration])
            let returned = try await db.transaction { sql in
                try await insertItem(sql, id: 1, label: "one")
                try await insertItem(sql, id: 2, label: "two")
                return "done"
            }
            #expect(returned == "done")
            #expect(try await rowCount(db, "items") == 2)
        }
    }

    @Test("a thrown error rolls the whole transaction back and is rethrown unchanged", arguments: TestEngine.allCases)
    func thrownErrorRollsBack(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { db in
            try await db.migrate(service: "test", migrations: [itemsMigration])
            try await db.transaction { sql in try await insertItem(sql, id: 1, label: "kept") }

            await #expect(throws: IntentionalFailure()) {
                try await db.transaction { sql in
                    try await insertItem(sql, id: 2, label: "two")
                    try await insertItem(sql, id: 3, label: "three")
                    try await sql.raw("UPDATE items SET label = \(bind: "changed") WHERE id = \(bind: 1)").run()
                    try await sql.raw("DELETE FROM items WHERE id = \(bind: 1)").run()
                    throw IntentionalFailure()
                }
            }
            let labels = try await db.withConnection { sql in
                try await sql.raw("SELECT label FROM items ORDER BY id").all(decodingColumn: "label", as: String.self)
            }
            #expect(labels == ["kept"])

            // The connection is healthy afterwards.
            try await db.transaction { sql in try await insertItem(sql, id: 4, label: "four") }
            #expect(try await rowCount(db, "items") == 2)
        }
    }

    @Test("50 concurrent increments of one counter lose no update", arguments: TestEngine.allCases)
    func concurrentIncrementsLoseNoUpdate(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { db in
            try await db.migrate(
                service: "test",
                migrations: [
                    Migration(
                        version: 1,
                        name: "counter",
                        statements: [
                            "CREATE TABLE counters (id BIGINT PRIMARY KEY, n BIGINT NOT NULL)",
                            "INSERT INTO counters (id, n) VALUES (1, 0)",
                        ]
                    )
                ]
            )
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        try await db.transaction { sql in
                            try await sql.raw("UPDATE counters SET n = n + 1 WHERE id = \(bind: 1)").run()
                        }
                    }
                }
                try await group.waitForAll()
            }
            let n = try await db.withConnection { sql in
                try await sql.raw("SELECT n FROM counters WHERE id = 1").first(decodingColumn: "n", as: Int.self)
            }
            #expect(n == 50)
        }
    }

    @Test(
        "concurrent read-then-write transactions are serialised by a conditional update",
        arguments: TestEngine.allCases
    )
    func concurrentReadModifyWrite(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { db in
            try await db.migrate(
                service: "test",
                migrations: [
                    Migration(
                        version: 1,
                        name: "counter",
                        statements: [
                            "CREATE TABLE counters (id BIGINT PRIMARY KEY, n BIGINT NOT NULL)",
                            "INSERT INTO counters (id, n) VALUES (1, 0)",
                        ]
                    )
                ]
            )
            // Optimistic concurrency, portable: read n, write n+1 only if n is unchanged, retry otherwise.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        while true {
                            let updated = try await db.transaction { sql -> Bool in
                                let n = try await sql.raw("SELECT n FROM counters WHERE id = 1").first(
                                    decodingColumn: "n",
                                    as: Int.self
                                )!
                                let rows = try await sql.raw(
                                    "UPDATE counters SET n = \(bind: n + 1) WHERE id = 1 AND n = \(bind: n) RETURNING n"
                                ).all()
                                return rows.count == 1
                            }
                            if updated { break }
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(
                try await db.withConnection { sql in
                    try await sql.raw("SELECT n FROM counters WHERE id = 1").first(decodingColumn: "n", as: Int.self)
                } == 20
            )
        }
    }

    @Test(
        "read-then-write transactions locking with the builder's FOR UPDATE lose no update",
        arguments: TestEngine.allCases
    )
    func selectForUpdateSerialisesReadModifyWrite(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { db in
            try await db.migrate(
                service: "test",
                migrations: [
                    Migration(
                        version: 1,
                        name: "counter",
                        statements: [
                            "CREATE TABLE counters (id BIGINT PRIMARY KEY, n BIGINT NOT NULL)",
                            "INSERT INTO counters (id, n) VALUES (1, 0)",
                        ]
                    )
                ]
            )
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        try await db.transaction { sql in
                            let n = try await sql.select().column("n").from("counters").where("id", .equal, 1)
                                .for(.update)
                                .first(decodingColumn: "n", as: Int.self)!
                            try await sql.update("counters").set("n", to: n + 1).where("id", .equal, 1).run()
                        }
                    }
                }
                try await group.waitForAll()
            }
            let n = try await db.withConnection { sql in
                try await sql.raw("SELECT n FROM counters WHERE id = 1").first(decodingColumn: "n", as: Int.self)
            }
            #expect(n == 20)
        }
    }

    @Test("unique and primary-key violations are recognised", arguments: TestEngine.allCases)
    func uniqueViolationIsRecognised(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { db in
            try await db.migrate(service: "test", migrations: [itemsMigration])
            try await db.transaction { sql in try await insertItem(sql, id: 1, label: "one") }

            let duplicateLabel = await #expect(throws: (any Error).self) {
                try await db.transaction { sql in try await insertItem(sql, id: 2, label: "one") }
            }
            #expect(duplicateLabel.map(DatabaseError.isUniqueViolation) == true)
            #expect(duplicateLabel.map(DatabaseError.isSerializationFailure) == false)

            let duplicateKey = await #expect(throws: (any Error).self) {
                try await db.transaction { sql in try await insertItem(sql, id: 1, label: "another") }
            }
            #expect(duplicateKey.map(DatabaseError.isUniqueViolation) == true)

            // Other failures are not unique violations.
            let notNull = await #expect(throws: (any Error).self) {
                try await db.transaction { sql in try await sql.raw("INSERT INTO items (id) VALUES (9)").run() }
            }
            #expect(notNull.map(DatabaseError.isUniqueViolation) == false)
            #expect(DatabaseError.isUniqueViolation(IntentionalFailure()) == false)
            #expect(try await rowCount(db, "items") == 1)
        }
    }

    @Test("foreign keys are enforced and their violation is recognised", arguments: TestEngine.allCases)
    func foreignKeysAreEnforced(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { db in
            try await db.migrate(
                service: "test",
                migrations: [
                    Migration(
                        version: 1,
                        name: "parent and child",
                        statements: [
                            "CREATE TABLE parents (id BIGINT PRIMARY KEY)",
                            "CREATE TABLE children (id BIGINT PRIMARY KEY, parent_id BIGINT NOT NULL REFERENCES parents (id))",
                        ]
                    )
                ]
            )
            let error = await #expect(throws: (any Error).self) {
                try await db.transaction { sql in
                    try await sql.raw("INSERT INTO children (id, parent_id) VALUES (1, 42)").run()
                }
            }
            #expect(error.map(DatabaseError.isForeignKeyViolation) == true)
        }
    }

    @Test("withSavepoint undoes only the failed statement and the transaction goes on", arguments: TestEngine.allCases)
    func savepointContinuesAfterUniqueViolation(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { db in
            try await db.migrate(service: "test", migrations: [itemsMigration])
            try await db.transaction { sql in try await insertItem(sql, id: 1, label: "existing") }

            let outcome = try await db.transaction { sql -> String in
                try await insertItem(sql, id: 2, label: "before")
                do {
                    try await sql.withSavepoint { try await insertItem($0, id: 3, label: "existing") }
                    return "inserted"
                } catch  where DatabaseError.isUniqueViolation(error) {
                    try await insertItem(sql, id: 4, label: "after")
                    return "duplicate"
                }
            }
            #expect(outcome == "duplicate")
            let ids = try await db.withConnection { sql in
                try await sql.raw("SELECT id FROM items ORDER BY id").all(decodingColumn: "id", as: Int.self)
            }
            #expect(ids == [1, 2, 4])
        }
    }

    @Test(
        "an error swallowed inside the body: PostgreSQL reports the aborted commit, SQLite commits",
        arguments: TestEngine.allCases
    )
    func swallowedErrorBehaviour(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { db in
            try await db.migrate(service: "test", migrations: [itemsMigration])
            try await db.transaction { sql in try await insertItem(sql, id: 1, label: "existing") }

            let attempt: () async throws -> Void = {
                try await db.transaction { sql in
                    try await insertItem(sql, id: 2, label: "new")
                    do { try await insertItem(sql, id: 3, label: "existing") } catch {}
                }
            }
            switch db.engine {
            case .postgres:
                await #expect(throws: FoyerStorageError.transactionAborted) { try await attempt() }
                #expect(try await rowCount(db, "items") == 1)
            case .sqlite:
                try await attempt()
                #expect(try await rowCount(db, "items") == 2)
            }
        }
    }

    @Test("nested use of the database inside a transaction body is refused", arguments: TestEngine.allCases)
    func nestedTransactionIsRefused(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { db in
            try await db.migrate(service: "test", migrations: [itemsMigration])
            await #expect(throws: FoyerStorageError.nestedTransaction) {
                try await db.transaction { sql in
                    try await insertItem(sql, id: 1, label: "outer")
                    try await db.transaction { inner in try await insertItem(inner, id: 2, label: "inner") }
                }
            }
            await #expect(throws: FoyerStorageError.nestedTransaction) {
                try await db.transaction { _ in try await db.withConnection { _ in } }
            }
            #expect(try await rowCount(db, "items") == 0)
        }
    }

    @Test("withConnection is for reads: SQLite refuses writes there", arguments: TestEngine.allCases)
    func withConnectionIsReadOnlyOnSQLite(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { db in
            try await db.migrate(service: "test", migrations: [itemsMigration])
            let write: () async throws -> Void = {
                try await db.withConnection { sql in try await insertItem(sql, id: 1, label: "outside") }
            }
            switch db.engine {
            case .sqlite:
                await #expect(throws: (any Error).self) { try await write() }
                #expect(try await rowCount(db, "items") == 0)
            case .postgres:
                try await write()  // allowed by PostgreSQL; the SQLite run of a store's tests catches it
                #expect(try await rowCount(db, "items") == 1)
            }
        }
    }

    @Test("serialization failures are classified and retried when asked", arguments: TestEngine.allCases)
    func serializationFailuresAreRetried(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { db in
            try await db.migrate(service: "test", migrations: [itemsMigration])
            switch db.engine {
            case .postgres:
                let attempts = Counter()
                let conflictOnFirstAttempt: @Sendable (any SQLDatabase) async throws -> Int = { sql in
                    if attempts.increment() == 1 {
                        try await sql.raw(
                            "DO $$ BEGIN RAISE EXCEPTION 'forced conflict' USING ERRCODE = 'serialization_failure'; END $$"
                        ).run()
                    }
                    try await insertItem(sql, id: 1, label: "after retry")
                    return attempts.current
                }
                let error = await #expect(throws: (any Error).self) {
                    try await db.transaction(conflictOnFirstAttempt)
                }
                #expect(error.map(DatabaseError.isSerializationFailure) == true)
                #expect(error.flatMap(DatabaseError.sqlState(of:)) == "40001")

                attempts.reset()
                #expect(try await db.transaction(retryingSerializationFailures: 3, conflictOnFirstAttempt) == 2)

            case .sqlite:
                // Another process (here: another handle on the file) holds the write lock longer than our busy timeout.
                let impatient = try await reopen(db) { $0.limits.sqliteBusyTimeout = .milliseconds(20) }
                let other = try await reopen(db)
                let (started, signal) = AsyncStream<Void>.makeStream()
                let holder = Task {
                    try await other.transaction { sql in
                        try await insertItem(sql, id: 100, label: "held")
                        signal.yield()
                        try await Task.sleep(for: .milliseconds(400))
                    }
                }
                var iterator = started.makeAsyncIterator()
                await iterator.next()

                let error = await #expect(throws: (any Error).self) {
                    try await impatient.transaction { sql in try await insertItem(sql, id: 1, label: "blocked") }
                }
                #expect(error.map(DatabaseError.isSerializationFailure) == true)

                // Retried until the holder commits (each BEGIN IMMEDIATE gives up after 20 ms).
                try await impatient.transaction(retryingSerializationFailures: 200) { sql in
                    try await insertItem(sql, id: 1, label: "after retry")
                }
                try await holder.value
                #expect(try await rowCount(db, "items") == 2)
                try await impatient.close()
                try await other.close()
            }
            #expect(try await rowCount(db, "items") >= 1)
        }
    }

    @Test("a store actor can use its own state inside transaction bodies", arguments: TestEngine.allCases)
    func actorIsolatedStoreCompilesAndRuns(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { db in
            try await db.migrate(service: "test", migrations: [itemsMigration])
            let store = ItemStore(database: db)
            #expect(try await store.add("first") == 1)
            #expect(try await store.add("second") == 2)
            #expect(try await store.labels() == ["first", "second"])
        }
    }
}

/// A store written the way services will write them: an actor whose transaction bodies touch its own state.
actor ItemStore {
    let database: FoyerDatabase
    private var nextID = 1

    init(database: FoyerDatabase) { self.database = database }

    func add(_ label: String) async throws -> Int {
        try await self.database.transaction { sql in
            let id = self.nextID
            try await insertItem(sql, id: id, label: label)
            self.nextID += 1
            return id
        }
    }

    func labels() async throws -> [String] {
        try await self.database.withConnection { sql in
            try await sql.raw("SELECT label FROM items ORDER BY id").all(decodingColumn: "label", as: String.self)
        }
    }
}
