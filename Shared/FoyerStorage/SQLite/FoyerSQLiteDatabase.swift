import Logging
import NIOCore
import SQLKit

/// SQLKit's `SQLDatabase` over one ``FoyerSQLiteConnection``: what a store's statements run on with SQLite.
///
/// A statement runs on the connection's thread. Inside a transaction or a read the whole body already runs there
/// (``FoyerDatabase`` moves the task once), so the statement is a plain call; from anywhere else the task moves to
/// the thread for the statement and back. Values are bound as ``SQLiteValue/init(binding:)`` says and read through
/// ``SQLiteValueDecoder``.
struct FoyerSQLiteDatabase: SQLDatabase, ChangedRowsCounting {
    let connection: FoyerSQLiteConnection
    let logger: Logger
    let queryLogLevel: Logger.Level?

    var eventLoop: any EventLoop { self.connection.eventLoop }
    var dialect: any SQLDialect { FoyerSQLiteDialect() }

    func execute(
        sql query: any SQLExpression,
        _ onRow: @escaping @Sendable (any SQLRow) -> Void
    ) -> EventLoopFuture<
        Void
    > {
        self.eventLoop.makeFutureWithTask { try await self.execute(sql: query, onRow) }
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> Void) async throws {
        try await self.run(query, onRow)
    }

    func executeCountingChangedRows(sql query: any SQLExpression) async throws -> Int {
        try await self.run(query) { _ in }
    }

    /// Runs `query` on the connection's thread; answers how many rows it changed.
    private func run(
        _ query: any SQLExpression,
        _ onRow: @escaping @Sendable (any SQLRow) -> Void
    ) async throws -> Int {
        let (sql, rawBinds) = self.serialize(query)
        if let queryLogLevel = self.queryLogLevel {
            self.logger.log(
                level: queryLogLevel,
                "Executing query",
                metadata: ["sql": .string(sql), "binds": .array(rawBinds.map { .string("\($0)") })]
            )
        }
        let binds = try rawBinds.map { try SQLiteValue(binding: $0) }
        let connection = self.connection
        return try await withTaskExecutorPreference(connection.thread) {
            try connection.run(sql, binds: binds) { row in onRow(SQLiteKitRow(row: row)) }
        }
    }
}

/// A result row as SQLKit's `SQLRow`, its values read through ``SQLiteValueDecoder``.
struct SQLiteKitRow: SQLRow {
    let row: SQLiteResultRow

    var allColumns: [String] { self.row.columns.names }

    func contains(column: String) -> Bool { self.row.value(column) != nil }

    func decodeNil(column: String) throws -> Bool { (self.row.value(column) ?? .null) == .null }

    func decode<D: Decodable>(column: String, as type: D.Type) throws -> D {
        guard let value = self.row.value(column) else { throw MissingColumn(column: column) }
        return try SQLiteValueDecoder.decode(D.self, from: value, column: column)
    }

    /// A column the row does not have was asked for.
    struct MissingColumn: Error, CustomStringConvertible {
        let column: String
        var description: String { "the row has no column '\(self.column)'" }
    }
}
