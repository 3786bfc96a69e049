import FoyerStorage
import FoyerTestSupport
import SQLKit
import Testing

@Suite("Opening, closing and durability")
struct DurabilityTests {
    @Test("committed data survives closing and reopening the database", arguments: TestEngine.allCases)
    func dataSurvivesCloseAndReopen(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { db in
            try await db.migrate(service: "test", migrations: [itemsMigration])
            for id in 1...20 {
                try await db.transaction { sql in try await insertItem(sql, id: id, label: "item \(id)") }
            }
            try await db.close()

            let reopened = try await reopen(db)
            let labels = try await reopened.withConnection { sql in
                try await sql.raw("SELECT label FROM items ORDER BY id").all(decodingColumn: "label", as: String.self)
            }
            #expect(labels == (1...20).map { "item \($0)" })
            // Reopening and migrating again changes nothing.
            try await reopened.migrate(service: "test", migrations: [itemsMigration])
            #expect(try await reopened.appliedMigrations(service: "test").map(\.version) == [1])
            try await reopened.close()
        }
    }

    @Test("a closed database refuses work, and closing twice is harmless", arguments: TestEngine.allCases)
    func closedDatabaseRefusesWork(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { db in
            try await db.close()
            try await db.close()
            await #expect(throws: FoyerStorageError.closed) {
                try await db.withConnection { _ in }
            }
            await #expect(throws: FoyerStorageError.closed) {
                try await db.transaction { _ in }
            }
        }
    }

    @Test("reads see the latest commit and run beside a writer", arguments: TestEngine.allCases)
    func readsSeeCommitsAndRunConcurrently(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { db in
            try await db.migrate(service: "test", migrations: [itemsMigration])
            try await db.transaction { sql in try await insertItem(sql, id: 1, label: "one") }
            let (inside, signal) = AsyncStream<Void>.makeStream()
            let (release, releaseSignal) = AsyncStream<Void>.makeStream()
            let writer = Task {
                try await db.transaction { sql in
                    try await insertItem(sql, id: 2, label: "uncommitted")
                    signal.yield()
                    var iterator = release.makeAsyncIterator()
                    await iterator.next()
                }
            }
            var iterator = inside.makeAsyncIterator()
            await iterator.next()
            // While the writer holds its transaction open, a read does not block and does not see it.
            #expect(try await rowCount(db, "items") == 1)
            releaseSignal.yield()
            try await writer.value
            #expect(try await rowCount(db, "items") == 2)
        }
    }

    @Test(
        "SQLite connections use WAL, synchronous=FULL, foreign keys and a busy timeout",
        arguments: [TestEngine.sqlite]
    )
    func sqlitePragmas(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { db in
            #expect(db.engine == .sqlite)
            let read = { (pragma: String) async throws -> String in
                try await db.withConnection { sql in
                    let row = try #require(try await sql.raw("PRAGMA \(unsafeRaw: pragma)").first())
                    let column = try #require(row.allColumns.first)
                    if let text = try? row.decode(column: column, as: String.self) { return text }
                    return String(try row.decode(column: column, as: Int.self))
                }
            }
            #expect(try await read("journal_mode") == "wal")
            #expect(try await read("synchronous") == "2")  // FULL
            #expect(try await read("foreign_keys") == "1")
            #expect(try await read("busy_timeout") == "5000")
            let writerSynchronous = try await db.transaction { sql in
                try await sql.raw("PRAGMA synchronous").first()!.decode(column: "synchronous", as: Int.self)
            }
            #expect(writerSynchronous == 2)
        }
    }

    @Test("the engine is reported on the database and on its connections", arguments: TestEngine.allCases)
    func engineIsReported(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { db in
            let expected: DatabaseEngineKind = engine == .sqlite ? .sqlite : .postgres
            #expect(db.engine == expected)
            let onReadConnection = try await db.withConnection { sql in sql.engineKind }
            let inTransaction = try await db.transaction { sql in sql.engineKind }
            #expect(onReadConnection == expected)
            #expect(inTransaction == expected)
        }
    }
}
