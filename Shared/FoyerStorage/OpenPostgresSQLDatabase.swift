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
// ``DatabaseUnavailable``. A connection closing in the instant between the check and the write (a server going
// away, the pool or ``PostgresStatementDeadline`` closing it) slips past the check; the statement's deadline catches
// that one: no answer within the statement timeout and its grace, and the call fails and the connection is closed.

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

/// A PostgreSQL connection's `SQLDatabase` that checks the connection is open before each statement and gives up
/// on a statement past its deadline.
struct OpenPostgresSQLDatabase: SQLDatabase, ChangedRowsCounting {
    let connection: PostgresConnection
    let base: any SQLDatabase
    let deadline: PostgresStatementDeadline

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
        return deadline.run(on: connection) { base.execute(sql: query, onRow) }
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        try await self.execute(sql: query, onRow).get()
    }

    /// Sends the statement with PostgresNIO's own binding (the values Foyer binds are strings, integers, booleans,
    /// doubles and bytes, all `PostgresEncodable`) and reads the count from the command tag.
    func executeCountingChangedRows(sql query: any SQLExpression) async throws -> Int {
        try connection.ensureOpen()
        let (sql, binds) = self.serialize(query)
        if let queryLogLevel {
            logger.log(level: queryLogLevel, "Executing query", metadata: ["sql": .string(sql)])
        }
        var bindings = PostgresBindings(capacity: binds.count)
        for bind in binds {
            guard let value = bind as? any PostgresEncodable else {
                throw FoyerStorageError.invalidConfiguration("a bound value of type \(type(of: bind)) cannot be sent")
            }
            try bindings.append(value, context: .default)
        }
        let statement = PostgresQuery(unsafeSQL: sql, binds: bindings)
        let metadata = try await deadline.run(on: connection) {
            connection.query(statement, logger: logger) { _ in }
        }.get()
        return metadata.rows ?? 0
    }
}

/// The statements that bound a transaction on a pooled connection (SQLite's transactions are ``SQLiteGroupCommit``'s).
extension PostgresConnection {
    /// This connection's `SQLDatabase` for a store's statements.
    func foyerSQL(
        logger: Logger,
        queryLogLevel: Logger.Level?,
        deadline: PostgresStatementDeadline
    ) -> any SQLDatabase {
        OpenPostgresSQLDatabase(
            connection: self,
            base: self.sql(queryLogLevel: queryLogLevel, logger: logger),
            deadline: deadline
        )
    }

    /// `BEGIN` (READ COMMITTED), sent without waiting for its answer. The transaction's first statement goes out
    /// right behind it on the same connection, which runs and answers statements in the order they came, so a
    /// transaction saves the round trip of its `BEGIN` (one of the four or five of a service's hottest
    /// transactions). The caller waits for the answer before `COMMIT` or `ROLLBACK`; it has come by then. A
    /// `BEGIN` that fails can only fail with the connection, and then so does every statement behind it.
    func begin(deadline: PostgresStatementDeadline) throws -> EventLoopFuture<PostgresQueryResult> {
        try self.ensureOpen()
        return deadline.run(on: self) { self.query("BEGIN") }
    }

    func commit(deadline: PostgresStatementDeadline) async throws {
        // PostgreSQL answers COMMIT of an aborted transaction with the tag ROLLBACK and no error.
        let result = try await self.simpleQuery("COMMIT", deadline: deadline)
        if result.metadata.command == "ROLLBACK" {
            throw FoyerStorageError.transactionAborted
        }
    }

    func rollback(deadline: PostgresStatementDeadline) async throws {
        _ = try await self.simpleQuery("ROLLBACK", deadline: deadline)
    }

    private func simpleQuery(_ sql: String, deadline: PostgresStatementDeadline) async throws -> PostgresQueryResult {
        try self.ensureOpen()
        return try await deadline.run(on: self) { self.query(sql) }.get()
    }
}
