import FoyerTestSupport
import Glibc
import NIOCore
import PostgresNIO
import SQLKit
import Testing

@testable import FoyerStorage

/// A PostgreSQL connection that the server closes in the middle of a transaction (here its backend is terminated
/// from another connection, as a server shutting down does): the statements after it, and the ROLLBACK, fail
/// with ``DatabaseUnavailable`` instead of waiting for ever for an answer that cannot come (PostgresNIO drops a
/// statement written to a closed connection; see OpenPostgresSQLDatabase.swift). Without the check, this test
/// hangs in the loop below.
@Suite("A PostgreSQL connection closed by the server")
struct ClosedConnectionTests {
    @Test("the transaction fails with DatabaseUnavailable, and the next one runs", .timeLimit(.minutes(1)))
    func transactionOnClosedConnection() async throws {
        try await withTestDatabase(.postgres) { db in
            let killer = try await FoyerDatabase.open(db.configuration, logger: testDatabaseLogger)
            await #expect(throws: DatabaseUnavailable.self) {
                try await db.transaction { sql in
                    let pid = try await sql.raw("SELECT pg_backend_pid() AS pid").first()!
                        .decode(column: "pid", as: Int.self)
                    try await killer.withConnection { other in
                        try await other.raw("SELECT pg_terminate_backend(CAST(\(bind: pid) AS INTEGER))").run()
                    }
                    // Statements until the closed connection is seen: each either still runs, or fails with the
                    // server's goodbye, or (once the connection has closed) fails with DatabaseUnavailable.
                    while true {
                        do {
                            try await sql.raw("SELECT 1").run()
                        } catch let error as DatabaseUnavailable {
                            throw error
                        } catch {
                            continue
                        }
                    }
                }
            }
            try await killer.close()
            // The pool has dropped the closed connection: the next transaction gets a working one.
            let one = try await db.transaction { sql in
                try await sql.raw("SELECT 1 AS one").first()!.decode(column: "one", as: Int.self)
            }
            #expect(one == 1)
        }
    }

    @Test("a COMMIT due on a connection already closed fails with DatabaseUnavailable: it was never sent")
    func commitOnClosedConnection() async throws {
        try await withTestDatabase(.postgres) { db in
            let killer = try await FoyerDatabase.open(db.configuration, logger: testDatabaseLogger)
            await #expect(throws: DatabaseUnavailable.self) {
                try await db.transaction { sql in
                    let pid = try await sql.raw("SELECT pg_backend_pid() AS pid").first()!
                        .decode(column: "pid", as: Int.self)
                    try await killer.withConnection { other in
                        try await other.raw("SELECT pg_terminate_backend(CAST(\(bind: pid) AS INTEGER))").run()
                    }
                    // Statements until this connection is seen closed, then return normally: COMMIT is next.
                    while true {
                        do {
                            try await sql.raw("SELECT 1").run()
                        } catch is DatabaseUnavailable {
                            break
                        } catch {
                            continue
                        }
                    }
                }
            }
            try await killer.close()
        }
    }

    @Test(
        "a connection reset, and the closed-connection errors of PostgresNIO's older API, mean the database is unreachable"
    )
    func classifiesClosedConnections() {
        let errors: [any Error] = [
            PostgresError.connectionClosed, PostgresError.protocol("Unexpected connection close"),
            IOError(errnoCode: ECONNRESET, reason: "read(descriptor:pointer:size:)"),
        ]
        for error in errors {
            #expect(DatabaseUnavailable.classifying(error)?.reason == .unreachable, "\(error)")
        }
        #expect(DatabaseUnavailable.classifying(PostgresError.protocol("Unsupported auth scheme: none")) == nil)
    }
}
