import FoyerStorage
import SQLKit

extension SQLDatabase {
    /// ` FOR UPDATE` on PostgreSQL (row locks for read-then-write inside a transaction), nothing on SQLite, whose
    /// `BEGIN IMMEDIATE` transactions already run one at a time.
    var lockClause: String {
        engineKind == .postgres ? " FOR UPDATE" : ""
    }
}
