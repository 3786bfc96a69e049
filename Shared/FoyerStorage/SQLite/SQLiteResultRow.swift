internal import CFoyerSQLite

/// The names of a statement's result columns, shared by every row it returns.
final class SQLiteColumnNames: Sendable {
    let names: [String]

    init(statement: OpaquePointer) {
        self.names = (0..<sqlite3_column_count(statement)).map { column in
            sqlite3_column_name(statement, column).map { String(cString: $0) } ?? ""
        }
    }

    var count: Int { self.names.count }
}

/// One row a statement returned: its values, by column.
struct SQLiteResultRow: Sendable {
    let columns: SQLiteColumnNames
    let values: [SQLiteValue]

    /// The value of the first column named `name`, or `nil` when there is none.
    func value(_ name: String) -> SQLiteValue? {
        self.columns.names.firstIndex(of: name).map { self.values[$0] }
    }
}
