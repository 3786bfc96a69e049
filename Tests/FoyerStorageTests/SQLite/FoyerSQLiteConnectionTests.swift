import Foundation
import FoyerTestSupport
import NIOCore
import SQLKit
import Testing

@testable import FoyerStorage

/// The SQLite engine's own connection (SQLite/FoyerSQLiteConnection.swift): each connection on a thread of its own,
/// a transaction's or a read's body on that thread, prepared statements kept per connection.
@Suite("SQLite connections on their own threads")
struct FoyerSQLiteConnectionTests {
    @Test("a transaction's body and every statement in it run on the writer's thread, a read's on a reader's")
    func bodiesRunOnTheConnectionsThread() async throws {
        try await withTestDatabase(.sqlite) { db in
            try await db.migrate(service: "test", migrations: [itemsMigration])
            let (writer, inTransaction) = try await db.transaction { sql in
                let thread = try #require(sql as? FoyerSQLiteDatabase).connection.thread
                var onThread = [thread.isCurrent]
                for id in 1...3 {
                    try await insertItem(sql, id: id, label: "item \(id)")
                    onThread.append(thread.isCurrent)
                }
                _ = try await sql.raw("SELECT count(*) AS n FROM items").first()
                onThread.append(thread.isCurrent)
                return (ObjectIdentifier(thread), onThread)
            }
            #expect(inTransaction == Array(repeating: true, count: 5))

            let (reader, inRead) = try await db.withConnection { sql in
                let thread = try #require(sql as? FoyerSQLiteDatabase).connection.thread
                var onThread = [thread.isCurrent]
                _ = try await sql.raw("SELECT label FROM items ORDER BY id").all()
                onThread.append(thread.isCurrent)
                return (ObjectIdentifier(thread), onThread)
            }
            #expect(inRead == [true, true])
            #expect(reader != writer)
        }
    }

    @Test("more distinct statements than the connection keeps prepared: every one still answers")
    func preparedStatementsBeyondTheCache() async throws {
        try await withTestDatabase(.sqlite) { db in
            try await db.migrate(service: "test", migrations: [itemsMigration])
            // Each statement text differs (its alias), so each is prepared and kept: 300 > the 128 kept.
            let labels = try await db.transaction { sql in
                var labels: [String] = []
                for id in 1...300 {
                    try await insertItem(sql, id: id, label: "item \(id)")
                    let row = try await sql.raw(
                        "SELECT label AS \(ident: "label_\(id)") FROM items WHERE id = \(bind: id)"
                    ).first()
                    labels.append(try #require(row).decode(column: "label_\(id)", as: String.self))
                }
                return labels
            }
            #expect(labels == (1...300).map { "item \($0)" })
        }
    }

    @Test("a kept statement sees a schema change made after it was prepared")
    func keptStatementAfterSchemaChange() async throws {
        try await withTestDatabase(.sqlite) { db in
            try await db.migrate(service: "test", migrations: [itemsMigration])
            let select = { (sql: any SQLDatabase) async throws -> [String] in
                try await sql.raw("SELECT * FROM items WHERE id = \(bind: 1)").first()?.allColumns ?? []
            }
            let before = try await db.transaction { sql in
                try await insertItem(sql, id: 1, label: "one")
                return try await select(sql)
            }
            let after = try await db.transaction { sql in
                try await sql.raw("ALTER TABLE items ADD COLUMN note TEXT").run()
                return try await select(sql)
            }
            #expect(before == ["id", "label"])
            #expect(after == ["id", "label", "note"])
        }
    }

    @Test("an empty blob or text is stored empty, not NULL; text with a NUL inside and numbers keep their values")
    func boundValuesKeepTheirTypes() async throws {
        try await withTestDatabase(.sqlite) { db in
            let row = try await db.transaction { sql in
                try await sql.raw(
                    """
                    SELECT typeof(\(bind: ByteBuffer())) AS empty, typeof(\(bind: "")) AS empty_text,
                        typeof(\(bind: "é\u{0}x")) AS text,
                        length(CAST(\(bind: "é\u{0}x") AS BLOB)) AS text_bytes, \(bind: Int64.min) AS small,
                        \(bind: 0.5) AS half, \(bind: Optional<String>.none) AS missing
                    """
                ).first()
            }
            let values = try #require(row)
            #expect(try values.decode(column: "empty", as: String.self) == "blob")
            #expect(try values.decode(column: "empty_text", as: String.self) == "text")
            #expect(try values.decode(column: "text", as: String.self) == "text")
            #expect(try values.decode(column: "text_bytes", as: Int.self) == 4)
            #expect(try values.decode(column: "small", as: Int64.self) == Int64.min)
            #expect(try values.decode(column: "half", as: Double.self) == 0.5)
            #expect(try values.decodeNil(column: "missing"))
        }
    }

    @Test("an SQLite error carries its extended code and message, and a unique violation is classified")
    func errorsAreClassified() async throws {
        try await withTestDatabase(.sqlite) { db in
            try await db.migrate(service: "test", migrations: [itemsMigration])
            try await db.transaction { sql in try await insertItem(sql, id: 1, label: "one") }
            let duplicate = await capturing {
                try await db.transaction { sql in try await insertItem(sql, id: 2, label: "one") }
            }
            #expect(duplicate.failure.map(DatabaseError.isUniqueViolation) == true)
            let failure = try #require(duplicate.failure as? SQLiteFailure)
            #expect(failure.primaryCode == 19)  // SQLITE_CONSTRAINT
            #expect(failure.message.contains("UNIQUE"))
        }
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
