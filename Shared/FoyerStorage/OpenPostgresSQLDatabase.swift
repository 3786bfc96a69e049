import Logging
import NIOCore
import PostgresKit
import SQLKit

// PostgresNIO 1.x drops a statement written to a connection whose channel has already closed: the write fails,
// the statement's promise is never completed, and its caller waits for ever (vapor/postgres-nio#487, reverted in
// #501). That is what follows a PostgreSQL outage: the statement in flight fails with the connection, and the next
// one on that connection (the ROLLBACK, or a statement after an error the body caught) would never be answered,
// holding its request, its request permit and the service's graceful shutdown. So every statement Foyer sends on
// a PostgreSQL connection first checks that the connection is still open; one that has closed fails at once with
// ``DatabaseUnavailable``. (A connection closing in the instant between the check and the write is not covered;
// the check catches every statement sent after the close was seen, which is the case an outage produces.)

extension PostgresConnection {
    /// Throws ``DatabaseUnavailable`` if the connection has closed: a statement written to it would never be
    /// answered.
    func ensureOpen() throws(DatabaseUnavailable) {
        guard !isClosed else { throw .connectionClosed }
    }
}

extension DatabaseUnavailable {
    /// A statement was about to go to a PostgreSQL connection that has closed.
    static let connectionClosed = DatabaseUnavailable(
        reason: .unreachable,
        underlying: "the connection to PostgreSQL has closed"
    )
}

/// A PostgreSQL connection's `SQLDatabase` that checks the connection is open before each statement.
struct OpenPostgresSQLDatabase: SQLDatabase {
    let connection: PostgresConnection
    let base: any SQLDatabase

    var logger: Logger { base.logger }
    var eventLoop: any EventLoop { base.eventLoop }
    var version: (any SQLDatabaseReportedVersion)? { base.version }
    var dialect: any SQLDialect { base.dialect }
    var queryLogLevel: Logger.Level? { base.queryLogLevel }

    func execute(
        sql query: any SQLExpression,
        _ onRow: @escaping @Sendable (any SQLRow) -> Void
    ) -> EventLoopFuture<Void> {
        do {
            try connection.ensureOpen()
        } catch {
            return eventLoop.makeFailedFuture(error)
        }
        return base.execute(sql: query, onRow)
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        try connection.ensureOpen()
        try await base.execute(sql: query, onRow)
    }
}

/// The statements that bound a transaction on a pooled connection (SQLite's transactions are ``SQLiteGroupCommit``'s).
extension PostgresConnection {
    /// This connection's `SQLDatabase` for a store's statements.
    func foyerSQL(logger: Logger, queryLogLevel: Logger.Level?) -> any SQLDatabase {
        OpenPostgresSQLDatabase(connection: self, base: self.sql(queryLogLevel: queryLogLevel, logger: logger))
    }

    /// `BEGIN` (READ COMMITTED).
    func begin() async throws {
        try self.ensureOpen()
        _ = try await self.query("BEGIN" as String).get()
    }

    func commit() async throws {
        // PostgreSQL answers COMMIT of an aborted transaction with the tag ROLLBACK and no error.
        try self.ensureOpen()
        let result = try await self.query("COMMIT" as String).get()
        if result.metadata.command == "ROLLBACK" {
            throw FoyerStorageError.transactionAborted
        }
    }

    func rollback() async throws {
        try self.ensureOpen()
        _ = try await self.query("ROLLBACK" as String).get()
    }
}
