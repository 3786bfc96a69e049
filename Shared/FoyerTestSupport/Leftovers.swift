import Foundation
public import FoyerCrypto
public import FoyerStorage
import SQLKit

/// What a deleted user must not have left anywhere: its uid, its email addresses, its provider subjects, and the
/// digests the services store of them.
///
/// Texts are searched in text columns (also inside longer values) and, as UTF-8, in binary columns; digests as
/// bytes in binary columns and as hex and base64url text in text columns.
public struct LeftoverNeedles: Sendable, CustomStringConvertible {
    public var texts: [String]
    public var digests: [[UInt8]]

    /// The needles of a user: `uid`, `emails` (as given and lowercased), `subjects`, and identity's digests of
    /// each email (``identityEmailDigests(_:)``).
    public init(uid: String, emails: [String] = [], subjects: [String] = []) {
        var texts = [uid] + subjects
        var digests: [[UInt8]] = []
        for email in emails {
            texts += Set([email, email.lowercased()])
            digests += Self.identityEmailDigests(email.lowercased())
        }
        self.texts = texts.filter { !$0.isEmpty }
        self.digests = digests
    }

    /// The digests identity keeps of an (already lowercased) email address: its failed sign-ins are counted under
    /// `SHA-256("login:" + email)`, and per client source under `SHA-256("login-source:" + source + "\n" +
    /// email)`, for the sources a test stack's clients have (loopback, and none for internal callers).
    public static func identityEmailDigests(_ email: String) -> [[UInt8]] {
        ["login:" + email, "login-source:4:127.0.0.1\n" + email, "login-source:\n" + email].map {
            SHA256.hash(Array($0.utf8))
        }
    }

    /// Every needle as text: the texts, and each digest in hex and base64url.
    var textForms: [String] {
        texts + digests.flatMap { digest in [Self.hex(digest), Base64URL.encode(digest)] }
    }

    /// Every needle as bytes: the texts in UTF-8, and the digests.
    var byteForms: [[UInt8]] {
        texts.map { Array($0.utf8) } + digests
    }

    public var description: String { "\(texts) and \(digests.count) digests" }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 2 ? digits : "0" + digits
        }.joined()
    }
}

/// Finds what is left of a user in a service's database by reading its schema, so that a table added later is
/// searched without anyone listing it: every table (SQLite's `sqlite_master`, PostgreSQL's `information_schema`
/// for the connection's schema) and every text and binary column of each.
public enum Leftovers {
    /// The tables of `database` and, for each, its text and binary columns.
    public static func searchableColumns(in database: FoyerDatabase) async throws -> [String: [Column]] {
        try await database.withConnection { sql in
            switch sql.engineKind {
            case .sqlite: try await sqliteColumns(sql)
            case .postgres: try await postgresColumns(sql)
            }
        }
    }

    /// The rows of each table of `database` that hold any of `needles` in a text or binary column, by table
    /// (tables without any are left out; empty when nothing is left).
    public static func find(_ needles: LeftoverNeedles, in database: FoyerDatabase) async throws -> [String: Int] {
        let tables = try await searchableColumns(in: database)
        var found: [String: Int] = [:]
        try await database.withConnection { sql in
            for (table, columns) in tables.sorted(by: { $0.key < $1.key }) where !columns.isEmpty {
                let conditions = SQLList(
                    columns.flatMap { condition(for: $0, needles: needles, engine: sql.engineKind) },
                    separator: SQLRaw(" OR ")
                )
                let count =
                    try await sql.raw("SELECT COUNT(*) AS n FROM \(ident: table) WHERE \(conditions)")
                    .first()?.decode(column: "n", as: Int.self) ?? 0
                if count > 0 { found[table] = count }
            }
        }
        return found
    }

    /// A column a leftover may hide in.
    public struct Column: Sendable, Hashable {
        public var name: String
        /// BLOB / BYTEA (searched for bytes) rather than text.
        public var isBinary: Bool

        public init(name: String, isBinary: Bool) {
            self.name = name
            self.isBinary = isBinary
        }
    }

    private static func condition(
        for column: Column,
        needles: LeftoverNeedles,
        engine: DatabaseEngineKind
    ) -> [any SQLExpression] {
        switch engine {
        case .sqlite:
            // Byte-wise search whatever the value's storage class; texts are stored as UTF-8.
            let bytes = column.isBinary ? needles.byteForms : needles.textForms.map { Array($0.utf8) }
            return bytes.map { "instr(CAST(\(ident: column.name) AS BLOB), \(SQLBytes($0))) > 0" as SQLQueryString }
        case .postgres:
            if column.isBinary {
                return needles.byteForms.map {
                    "position(\(SQLBytes($0)) IN \(ident: column.name)) > 0" as SQLQueryString
                }
            }
            return needles.textForms.map { "strpos(\(ident: column.name)::text, \(bind: $0)) > 0" as SQLQueryString }
        }
    }

    private static func sqliteColumns(_ sql: any SQLDatabase) async throws -> [String: [Column]] {
        let tables = try await sql.raw(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        ).all(decodingColumn: "name", as: String.self)
        var columns: [String: [Column]] = [:]
        for table in tables {
            let rows = try await sql.raw("SELECT name, type FROM pragma_table_info(\(bind: table))").all()
            columns[table] = try rows.compactMap { row in
                let type = try row.decode(column: "type", as: String.self).uppercased()
                let isBinary = type.contains("BLOB") || type.isEmpty
                let isText = ["TEXT", "CHAR", "CLOB"].contains { type.contains($0) }
                guard isBinary || isText else { return nil }
                return Column(name: try row.decode(column: "name", as: String.self), isBinary: isBinary)
            }
        }
        return columns
    }

    private static func postgresColumns(_ sql: any SQLDatabase) async throws -> [String: [Column]] {
        let tables = try await sql.raw(
            """
            SELECT table_name FROM information_schema.tables
            WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
            """
        ).all(decodingColumn: "table_name", as: String.self)
        var columns: [String: [Column]] = Dictionary(uniqueKeysWithValues: tables.map { ($0, []) })
        let rows = try await sql.raw(
            """
            SELECT table_name, column_name, data_type FROM information_schema.columns
            WHERE table_schema = current_schema()
            ORDER BY table_name, ordinal_position
            """
        ).all()
        for row in rows {
            let table = try row.decode(column: "table_name", as: String.self)
            let type = try row.decode(column: "data_type", as: String.self)
            guard columns[table] != nil else { continue }
            let isBinary = type == "bytea"
            let isText = ["text", "character varying", "character", "json", "jsonb"].contains(type)
            guard isBinary || isText else { continue }
            columns[table, default: []].append(
                Column(name: try row.decode(column: "column_name", as: String.self), isBinary: isBinary)
            )
        }
        return columns
    }
}
