import PostgresKit

/// Errors raised by the storage layer itself (database errors pass through unchanged; classify them with
/// ``DatabaseError``).
public enum FoyerStorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The database setting or the configuration is unusable; the message says why and what is accepted.
    case invalidConfiguration(String)
    /// The database could not be opened or reached; the message names the redacted location and the cause.
    case openFailed(String)
    /// The database records a migration version newer than any this code knows: the service was rolled back
    /// after a newer version migrated the schema. Refusing to start protects the data.
    case schemaNewerThanCode(service: String, databaseVersion: Int, newestKnownVersion: Int)
    /// The migrations recorded in the database and the list in code disagree (a recorded version missing from
    /// code, or an unapplied migration older than an applied one).
    case migrationHistoryMismatch(service: String, detail: String)
    /// The migration list itself is invalid (duplicate or non-positive versions, empty names).
    case invalidMigrations(service: String, detail: String)
    /// A migration threw; its transaction was rolled back and its version is not recorded.
    case migrationFailed(service: String, version: Int, name: String, underlying: String)
    /// PostgreSQL answered COMMIT with ROLLBACK: a statement in the transaction had failed (and the error was
    /// caught inside the body), which aborts the whole transaction on PostgreSQL. Nothing was committed.
    case transactionAborted
    /// `transaction` was called inside the body of another `transaction` (or `withConnection` inside a
    /// transaction) of the same database in the same task. Use the connection the body receives instead.
    case nestedTransaction
    /// The connection to PostgreSQL failed while COMMIT was in flight: the transaction may or may not have been
    /// committed (outcome unknown; the services answer `internal`, which an idempotent call may retry).
    case commitOutcomeUnknown(String)
    /// The database was closed.
    case closed

    public var description: String {
        switch self {
        case .invalidConfiguration(let message):
            "invalid database configuration: \(message)"
        case .openFailed(let message):
            "cannot open database: \(message)"
        case .schemaNewerThanCode(let service, let databaseVersion, let newestKnownVersion):
            "the database of service '\(service)' is at migration version \(databaseVersion), newer than the newest version this build knows (\(newestKnownVersion)); refusing to start. Run a build that knows version \(databaseVersion), or restore a backup."
        case .migrationHistoryMismatch(let service, let detail):
            "migration history of service '\(service)' does not match the code: \(detail)"
        case .invalidMigrations(let service, let detail):
            "invalid migration list for service '\(service)': \(detail)"
        case .migrationFailed(let service, let version, let name, let underlying):
            "migration \(version) '\(name)' of service '\(service)' failed and was rolled back: \(underlying)"
        case .transactionAborted:
            "the transaction was aborted by an earlier failed statement (PostgreSQL aborts the whole transaction on any error; use ON CONFLICT, or withSavepoint around a statement that may fail) and nothing was committed"
        case .nestedTransaction:
            "transaction or withConnection called inside a transaction body of the same database; use the connection passed to the body"
        case .commitOutcomeUnknown(let underlying):
            "the connection failed while COMMIT was in flight, so the transaction may or may not have been committed: \(underlying)"
        case .closed:
            "the database has been closed"
        }
    }
}

/// Portable classification of errors thrown by either engine.
///
/// Services implement idempotency keys by inserting the key and catching the unique violation:
///
/// ```swift
/// do {
///     try await db.transaction { sql in try await sql.raw("INSERT INTO idempotency_keys ...").run() }
/// } catch where DatabaseError.isUniqueViolation(error) {
///     // already done: read and return the stored result
/// }
/// ```
///
/// On PostgreSQL a failed statement aborts its whole transaction: catch the violation outside `transaction`,
/// or wrap the one statement in `withSavepoint`, or use `INSERT ... ON CONFLICT DO NOTHING` (both engines).
public enum DatabaseError {
    /// A UNIQUE or PRIMARY KEY constraint was violated: SQLite `SQLITE_CONSTRAINT_UNIQUE` /
    /// `SQLITE_CONSTRAINT_PRIMARYKEY` / `SQLITE_CONSTRAINT_ROWID`, PostgreSQL SQLSTATE `23505`.
    public static func isUniqueViolation(_ error: any Error) -> Bool {
        if let error = error as? SQLiteFailure {
            return [SQLiteFailure.constraintUnique, SQLiteFailure.constraintPrimaryKey, SQLiteFailure.constraintRowID]
                .contains(error.code)
        }
        return sqlState(of: error) == "23505"
    }

    /// A FOREIGN KEY constraint was violated: SQLite `SQLITE_CONSTRAINT_FOREIGNKEY`, PostgreSQL SQLSTATE `23503`.
    public static func isForeignKeyViolation(_ error: any Error) -> Bool {
        if let error = error as? SQLiteFailure {
            return error.code == SQLiteFailure.constraintForeignKey
        }
        return sqlState(of: error) == "23503"
    }

    /// The transaction lost a concurrency conflict and may succeed if retried from the start: PostgreSQL
    /// serialization failure `40001` or deadlock `40P01`; SQLite `SQLITE_BUSY` (a lock held by another connection
    /// beyond the busy timeout) or `SQLITE_LOCKED`. `FoyerDatabase.transaction(retryingSerializationFailures:_:)`
    /// retries these.
    public static func isSerializationFailure(_ error: any Error) -> Bool {
        if let error = error as? SQLiteFailure {
            return error.primaryCode == SQLiteFailure.busy || error.primaryCode == SQLiteFailure.locked
        }
        let state = sqlState(of: error)
        return state == "40001" || state == "40P01"
    }

    /// The PostgreSQL SQLSTATE of a server error (e.g. `"23505"`), or `nil` for other errors.
    public static func sqlState(of error: any Error) -> String? {
        (error as? PSQLError)?.serverInfo?[.sqlState]
    }
}
