public import Foundation
import PostgresKit
public import SQLKit

// MARK: - Time: integer microseconds since the Unix epoch

/// The one time convention of Foyer storage: a `Date` is stored as a `BIGINT` holding **microseconds since
/// 1970-01-01T00:00:00Z**, rounded to the nearest microsecond. Both engines compare and index it as an integer,
/// it matches PostgreSQL's own timestamp precision, and a signed 64-bit count spans ±292,000 years.
extension Date {
    private static let unixEpochMicrosecondsSinceReferenceDate: Int64 = 978_307_200 * 1_000_000

    /// This date as microseconds since the Unix epoch, rounded to the nearest microsecond.
    public var databaseMicroseconds: Int64 {
        // From the reference date rather than 1970, so the double being rounded is smaller and more precise.
        Int64((self.timeIntervalSinceReferenceDate * 1_000_000).rounded())
            + Self.unixEpochMicrosecondsSinceReferenceDate
    }

    /// The date `microseconds` after the Unix epoch. `Date(databaseMicroseconds: m).databaseMicroseconds == m`.
    public init(databaseMicroseconds microseconds: Int64) {
        self.init(
            timeIntervalSinceReferenceDate: Double(microseconds - Self.unixEpochMicrosecondsSinceReferenceDate)
                / 1_000_000
        )
    }
}

/// A `Date` as a bound `BIGINT` (microseconds since the Unix epoch); see `Date.databaseMicroseconds`.
///
/// ```swift
/// try await sql.raw("UPDATE sessions SET expires_at = \(SQLTimestamp(expiry)) WHERE id = \(bind: id)").run()
/// ```
public struct SQLTimestamp: SQLExpression {
    public let date: Date

    public init(_ date: Date) { self.date = date }

    public func serialize(to serializer: inout SQLSerializer) {
        serializer.write(bind: self.date.databaseMicroseconds)
    }
}

// MARK: - Bytes: BLOB / BYTEA

/// Binary data as a bound BLOB (SQLite) or BYTEA (PostgreSQL) that round-trips exactly on both engines,
/// including zero bytes and the empty value. Declare the column with `DatabaseEngineKind.binaryColumnType`.
///
/// ```swift
/// try await sql.raw("INSERT INTO keys (id, material) VALUES (\(bind: id), \(SQLBytes(material)))").run()
/// ```
///
/// Prefer this to binding `[UInt8]` directly: PostgreSQL would receive an array of `"char"`, not a `bytea`. (SQLite
/// binds an empty buffer as a zero-length blob, not NULL: SQLite/FoyerSQLiteConnection.swift.)
public struct SQLBytes: SQLExpression {
    public let bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    public init(_ data: Data) { self.bytes = Array(data) }

    public func serialize(to serializer: inout SQLSerializer) {
        serializer.write(bind: ByteBuffer(bytes: self.bytes))
    }
}

// MARK: - Reading

extension SQLRow {
    /// Reads a BLOB/BYTEA column written with ``SQLBytes``. Throws if the column is NULL or not binary.
    public func decodeBytes(column: String) throws -> [UInt8] {
        let buffer = try self.decode(column: column, as: ByteBuffer.self)
        return Array(buffer.readableBytesView)
    }

    /// Reads a nullable BLOB/BYTEA column: `nil` for NULL.
    public func decodeOptionalBytes(column: String) throws -> [UInt8]? {
        try self.decodeNil(column: column) ? nil : self.decodeBytes(column: column)
    }

    /// Reads a `BIGINT` microseconds column (see `Date.databaseMicroseconds`) as a `Date`.
    public func decodeDate(column: String) throws -> Date {
        Date(databaseMicroseconds: try self.decode(column: column, as: Int64.self))
    }

    /// Reads a nullable `BIGINT` microseconds column: `nil` for NULL.
    public func decodeOptionalDate(column: String) throws -> Date? {
        try self.decodeNil(column: column) ? nil : self.decodeDate(column: column)
    }
}

// MARK: - Engine-aware helpers on any connection

extension SQLDatabase {
    /// The engine behind this connection (from its SQL dialect), for the rare statement that must differ.
    public var engineKind: DatabaseEngineKind {
        self.dialect.name == "sqlite" ? .sqlite : .postgres
    }

    /// Runs `body` inside a savepoint of the current transaction: if `body` throws, only its changes are undone
    /// and the transaction can go on (on PostgreSQL this is the only way to continue after a failed statement).
    /// Call it only on the connection given to a `transaction` body.
    ///
    /// ```swift
    /// do {
    ///     try await sql.withSavepoint { try await $0.raw("INSERT INTO idempotency_keys (key) VALUES (\(bind: key))").run() }
    /// } catch where DatabaseError.isUniqueViolation(error) {
    ///     // the key exists; the transaction goes on
    /// }
    /// ```
    nonisolated(nonsending) public func withSavepoint<T>(
        _ body: nonisolated(nonsending) (any SQLDatabase) async throws -> T
    ) async throws -> T {
        let name = "foyer_sp_\(UInt64.random(in: 0...UInt64.max))"
        try await self.raw("SAVEPOINT \(ident: name)").run()
        let result: T
        do {
            result = try await body(self)
        } catch {
            try await self.raw("ROLLBACK TO SAVEPOINT \(ident: name)").run()
            try await self.raw("RELEASE SAVEPOINT \(ident: name)").run()
            throw error
        }
        try await self.raw("RELEASE SAVEPOINT \(ident: name)").run()
        return result
    }
}
