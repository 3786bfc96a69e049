public import SQLKit

// How many rows an INSERT, UPDATE or DELETE changed, from the engine rather than from rows sent back: SQLite's
// `sqlite3_changes` after the statement, PostgreSQL's command tag (`DELETE 10000`). A statement that deletes
// thousands of rows then costs one answer, not one row each (`RETURNING` hands every row to Swift).

/// A connection of this layer that can answer how many rows a statement changed.
protocol ChangedRowsCounting: SQLDatabase {
    /// Runs `query` (an INSERT, UPDATE or DELETE without `RETURNING`) and answers how many rows it changed.
    func executeCountingChangedRows(sql query: any SQLExpression) async throws -> Int
}

extension SQLQueryBuilder {
    /// Runs the statement (an INSERT, UPDATE or DELETE, without `RETURNING`) and answers how many rows it inserted,
    /// updated or deleted, as the engine counted them (rows a trigger or a foreign key's cascade touched are not
    /// counted, on either engine).
    ///
    /// ```swift
    /// let deleted = try await sql.raw("DELETE FROM documents WHERE uid = \(bind: uid)").runCountingChangedRows()
    /// ```
    ///
    /// Only on a connection a ``FoyerDatabase`` body received (a programmer error elsewhere).
    public func runCountingChangedRows() async throws -> Int {
        guard let database = self.database as? any ChangedRowsCounting else {
            preconditionFailure("runCountingChangedRows() runs on a FoyerDatabase connection only")
        }
        return try await database.executeCountingChangedRows(sql: self.query)
    }
}
