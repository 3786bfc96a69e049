import FoyerTestSupport
import SQLKit
import Testing

@testable import FoyerStorage

/// A PostgreSQL statement that cannot finish (blocked on a lock, or never answered) fails after the statement timeout
/// with ``DatabaseUnavailable`` (`timed-out`) instead of holding its call for ever.
@Suite("The PostgreSQL statement timeout")
struct StatementTimeoutTests {
    @Test("a statement blocked on a lock is cancelled by the server after the timeout", .timeLimit(.minutes(1)))
    func blockedStatementTimesOut() async throws {
        try await withTestDatabase(.postgres) { db in
            try await db.migrate(service: "test", migrations: [itemsMigration])
            try await db.transaction { sql in try await insertItem(sql, id: 1, label: "one") }
            let impatient = try await reopen(db) { $0.limits.postgresStatementTimeout = .seconds(1) }
            // Given a transaction holding the row's lock
            let reason = try await db.transaction { sql in
                try await sql.raw("UPDATE items SET label = 'held' WHERE id = 1").run()
                // When another connection wants the same row
                return await Self.unavailableReason {
                    try await impatient.transaction { other in
                        try await other.raw("UPDATE items SET label = 'waited' WHERE id = 1").run()
                    }
                }
            }
            // Then it failed as unavailable (timed out), and the database serves the next call.
            #expect(reason == .timedOut)
            let label = try await impatient.withConnection { sql in
                try await sql.raw("SELECT label FROM items WHERE id = 1").first(
                    decodingColumn: "label",
                    as: String.self
                )
            }
            #expect(label == "held")
            try await impatient.close()
        }
    }

    @Test(
        "a statement with no answer by the client's deadline fails, and its connection is replaced",
        .timeLimit(.minutes(1))
    )
    func unansweredStatementTimesOut() async throws {
        try await withTestDatabase(.postgres) { db in
            let impatient = try await reopen(db) { $0.limits.postgresStatementTimeout = .seconds(1) }
            // Given a statement the server lets run past the timeout (the server's own limit lifted for it, as for
            // a server that stopped answering)
            let reason = await Self.unavailableReason {
                try await impatient.transaction { sql in
                    try await sql.raw("SET LOCAL statement_timeout = 0").run()
                    try await sql.raw("SELECT pg_sleep(5)").run()
                }
            }
            // Then the client gave up on it after the timeout and its grace, and the next call gets a new connection.
            #expect(reason == .timedOut)
            let one = try await impatient.transaction { sql in
                try await sql.raw("SELECT 1 AS one").first(decodingColumn: "one", as: Int.self)
            }
            #expect(one == 1)
            try await impatient.close()
        }
    }

    @Test("the deadline lets an answer through, and a timeout of nil sets none")
    func deadlineLimits() {
        #expect(PostgresStatementDeadline(statementTimeout: nil).limit == nil)
        #expect(PostgresStatementDeadline(statementTimeout: .seconds(30)).limit == .seconds(32))
        #expect(
            DatabaseUnavailable.classifying(PostgresStatementDeadline.Exceeded(limit: .seconds(3)))?.reason
                == .timedOut
        )
    }

    /// The reason of the ``DatabaseUnavailable`` `body` throws (nil if it throws something else or nothing).
    static func unavailableReason(_ body: () async throws -> Void) async -> DatabaseUnavailable.Reason? {
        do {
            try await body()
            return nil
        } catch let error as DatabaseUnavailable {
            return error.reason
        } catch {
            Issue.record("expected DatabaseUnavailable, got \(String(reflecting: error))")
            return nil
        }
    }
}
