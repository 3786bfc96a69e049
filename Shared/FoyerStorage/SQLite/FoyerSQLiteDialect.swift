import SQLKit

/// How SQLKit writes SQL for Foyer's SQLite engine (libsqlite3 3.35 or later: `RETURNING`, upserts, `TRUE` and
/// `FALSE`).
struct FoyerSQLiteDialect: SQLDialect {
    var name: String { "sqlite" }
    var identifierQuote: any SQLExpression { SQLRaw("\"") }
    var literalStringQuote: any SQLExpression { SQLRaw("'") }
    var supportsAutoIncrement: Bool { false }
    var autoIncrementClause: any SQLExpression { SQLRaw("AUTOINCREMENT") }
    var literalDefault: any SQLExpression { SQLLiteral.null }
    var supportsIfExists: Bool { true }
    var supportsDropBehavior: Bool { false }
    var supportsReturning: Bool { true }
    var enumSyntax: SQLEnumSyntax { .unsupported }
    var upsertSyntax: SQLUpsertSyntax { .standard }
    var alterTableSyntax: SQLAlterTableSyntax { .init(allowsBatch: false) }
    var unionFeatures: SQLUnionFeatures { [.union, .unionAll, .intersect, .except] }

    func bindPlaceholder(at position: Int) -> any SQLExpression { SQLRaw("?\(position)") }
    func literalBoolean(_ value: Bool) -> any SQLExpression { SQLRaw(value ? "TRUE" : "FALSE") }
}
