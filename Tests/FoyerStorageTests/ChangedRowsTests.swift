import FoyerStorage
import FoyerTestSupport
import SQLKit
import Testing

@Suite("Counting the rows a statement changed")
struct ChangedRowsTests {
    @Test(
        "INSERT, UPDATE and DELETE answer how many rows they changed, and 0 when they change none",
        arguments: TestEngine.allCases
    )
    func countsChangedRows(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { db in
            try await db.migrate(service: "test", migrations: [itemsMigration])
            let counts = try await db.transaction { sql in
                let inserted = try await sql.raw(
                    "INSERT INTO items (id, label) VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')"
                ).runCountingChangedRows()
                let ignored = try await sql.raw(
                    "INSERT INTO items (id, label) VALUES (1, 'a') ON CONFLICT (id) DO NOTHING"
                ).runCountingChangedRows()
                let updated = try await sql.raw(
                    "UPDATE items SET label = label || '!' WHERE id > \(bind: 1)"
                ).runCountingChangedRows()
                let deleted = try await sql.raw(
                    "DELETE FROM items WHERE id IN (\(binds: [1, 2, 9]))"
                ).runCountingChangedRows()
                let none = try await sql.raw("DELETE FROM items WHERE label = \(bind: "zzz")").runCountingChangedRows()
                return [inserted, ignored, updated, deleted, none]
            }
            #expect(counts == [4, 0, 3, 2, 0])
            #expect(try await rowCount(db, "items") == 2)
        }
    }

    @Test("a DELETE of thousands of rows is counted in one answer", arguments: TestEngine.allCases)
    func countsManyRows(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { db in
            try await db.migrate(service: "test", migrations: [itemsMigration])
            let deleted = try await db.transaction { sql in
                for start in stride(from: 0, to: 5000, by: 500) {
                    let rows = SQLList(
                        (start..<start + 500).map { "(\(bind: $0), \(bind: "label \($0)"))" as SQLQueryString }
                    )
                    try await sql.raw("INSERT INTO items (id, label) VALUES \(rows)").run()
                }
                return try await sql.raw("DELETE FROM items WHERE id >= \(bind: 1000)").runCountingChangedRows()
            }
            #expect(deleted == 4000)
            #expect(try await rowCount(db, "items") == 1000)
        }
    }
}
