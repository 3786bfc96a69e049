// FoyerStorage: the storage layer every Foyer service uses.
//
// ## One store, two engines
// A service writes its store once, against SQLKit's `SQLDatabase` (`sql.raw("... \(bind: x)")` and the query
// builders), and runs it on SQLite (the embedded default: one file in the service's data directory) or on
// PostgreSQL (a `postgres://` URL), chosen at start-up by `DatabaseConfiguration.parse`.
//
// Why sql-kit, postgres-kit and an SQLite engine of our own:
// - GRDB is an excellent SQLite library but SQLite only: a PostgreSQL deployment would need a second store.
// - Writing every store twice (one per engine) doubles the code and the tests and lets the two drift apart.
// - sql-kit renders one query per dialect (`?` vs `$1` placeholders, identifier quoting, RETURNING, upserts), and
//   postgres-kit is a maintained driver on the same SwiftNIO stack, with a connection-pool abstraction (AsyncKit), so
//   a store is one piece of code tested on both engines.
// - SQLite is reached through libsqlite3 directly (SQLite/: a connection per thread, an `SQLDatabase` over it, the
//   dialect and the value coding), not sqlite-kit: sqlite-nio hands every statement to a thread pool and back, and
//   every row to the event loop, which cost a guest sign-in most of its time (docs/DECISIONS.md, "An SQLite engine
//   of our own").
//
// ## What differs between the engines, and how this layer hides it
// - Transactions: `FoyerDatabase.transaction` issues `BEGIN IMMEDIATE` on SQLite (the write lock is taken up front,
//   so writers queue instead of failing with SQLITE_BUSY on lock upgrade) and `BEGIN` (READ COMMITTED) on
//   PostgreSQL; COMMIT, or ROLLBACK on any thrown error. PostgreSQL aborts a whole transaction after any failed
//   statement while SQLite only undoes the statement: the layer reports a silently aborted COMMIT as
//   `FoyerStorageError.transactionAborted`, and `SQLDatabase.withSavepoint` gives the same "undo just this
//   statement" behaviour on both.
// - Concurrency: SQLite has one writer; here it is one pooled connection, so in-process transactions queue for it
//   (bounded by `limits.acquireTimeout`) and never see SQLITE_BUSY; other processes on the same file wait up to the
//   busy timeout. The transactions that queue while one runs are grouped into one physical transaction with one
//   COMMIT, each in its own savepoint (group commit: GroupCommit.swift), so a busy service pays one fsync per batch
//   instead of one per transaction. PostgreSQL groups concurrent commits itself (`commit_delay`). Reads use a
//   separate pool of read-only connections that WAL lets run beside the writer.
//   Each SQLite connection has a thread of its own (SQLite/SQLiteThread.swift), so a call sleeping in SQLite's busy
//   handler can never hold up the connection that owns the lock; a transaction's or a read's body runs on that
//   thread, so its statements are plain calls into libsqlite3, not a hand-off to another thread and back each
//   (SQLite/FoyerSQLiteConnection.swift). PostgreSQL uses a bounded pool (`limits.postgresPoolSize`).
// - Errors: `DatabaseError.isUniqueViolation` / `isSerializationFailure` classify SQLite result codes and PostgreSQL
//   SQLSTATEs alike. A database that cannot serve a call now (unreachable, restarting, disk full) is thrown as
//   `DatabaseUnavailable` on both engines (the services answer it `unavailable`); the pools reconnect by themselves.
// - Types: use these column types, which mean the same on both engines:
//     BIGINT (integers, ids, timestamps), TEXT, BOOLEAN (bind `Bool`), DOUBLE PRECISION,
//     binary: `DatabaseEngineKind.binaryColumnType` (BLOB / BYTEA) with `SQLBytes` to bind and `decodeBytes` to read,
//     time: BIGINT microseconds since the Unix epoch (`SQLTimestamp`, `Date.databaseMicroseconds`, `decodeDate`).
//   Generate ids in the service (random bytes or text) rather than relying on AUTOINCREMENT / IDENTITY, whose
//   syntax differs. TEXT ordering may differ (SQLite compares bytes, PostgreSQL uses the database collation):
//   do not rely on ORDER BY over text for correctness.
// - Migrations: `migrate(service:migrations:)` records versions per service in `foyer_migrations`, applies each
//   migration in its own transaction, and on PostgreSQL takes `pg_advisory_xact_lock` keyed by the service so that
//   replicas starting together apply each migration exactly once. DDL is transactional on both engines.
//
// ## Durability (SQLite)
// WAL journal mode (readers never block the writer), `synchronous=FULL` by default: in WAL mode FULL fsyncs the
// WAL at every commit, so a transaction that returned is on disk even after a power loss or OS crash; NORMAL only
// guarantees that after a process crash and may lose the last commits on power loss. Foyer holds accounts and
// credentials, so "nothing acknowledged is lost" wins over a few hundred microseconds per commit; a service with
// re-creatable data may choose `.normal`. `foreign_keys=ON` and `busy_timeout` are set on every connection.
//
// ## No background task
// PostgresNIO's `PostgresClient` needs its `run()` method running in a task (a swift-service-lifecycle `Service`).
// This layer instead uses AsyncKit's `EventLoopConnectionPool` through postgres-kit, which keeps its state on an
// event loop and needs no task of its own. So a service opens and migrates its database *before* it starts its
// ServiceGroup (refusing to start on a migration problem), and closes it after the group has returned:
//
// ```swift
// let database = try await FoyerDatabase.open(config, logger: logger)
// try await database.migrate(service: "accounts", migrations: AccountStore.migrations)
// do {
//     try await ServiceGroup(services: [server], gracefulShutdownSignals: [.sigterm], logger: logger).run()
// } catch {
//     try await database.close()
//     throw error
// }
// try await database.close()
// ```

import Foundation
public import Logging
import PostgresKit
public import SQLKit
import Synchronization

/// An open database of one service: SQLite or PostgreSQL behind one API. See the top of this file for the design.
///
/// Open once per process with ``open(_:logger:)``, share it (it is `Sendable`), and call ``close()`` before the
/// process exits (a database released without `close()` logs a warning and closes its connections without waiting).
public final class FoyerDatabase: Sendable {
    /// The configuration this database was opened with (its `description` hides passwords).
    public let configuration: DatabaseConfiguration
    let logger: Logger
    let backend: Backend
    private let isClosed = Mutex(false)
    private var metrics: DatabaseMetrics { DatabaseMetrics(engine: self.engine) }

    enum Backend: Sendable {
        case sqlite(
            writer: ConnectionPool<SQLiteConnectionFactory>,
            grouped: SQLiteGroupCommit,
            readers: ConnectionPool<SQLiteConnectionFactory>,
            writerThread: SQLiteThread
        )
        case postgres(ConnectionPool<PostgresConnectionSource>)
    }

    /// Databases whose transaction body the current task is running (to refuse nested use, which would wait for
    /// the SQLite writer forever or starve the PostgreSQL pool).
    @TaskLocal private static var transactionsInProgress: Set<ObjectIdentifier> = []

    /// Which engine this database runs on, for the rare statement that must differ. Inside a body,
    /// `sql.engineKind` says the same.
    public var engine: DatabaseEngineKind { self.configuration.engine.kind }

    init(configuration: DatabaseConfiguration, logger: Logger, backend: Backend) {
        self.configuration = configuration
        self.logger = logger
        self.backend = backend
    }

    /// Opens the database and runs `prepare` on it (a service's migrations, the store it builds), closing the
    /// database again if `prepare` throws: a service that refuses to start leaves nothing open.
    public static func open<T>(
        _ configuration: DatabaseConfiguration,
        logger: Logger,
        preparing prepare: (FoyerDatabase) async throws -> T
    ) async throws -> T {
        let database = try await open(configuration, logger: logger)
        do {
            return try await prepare(database)
        } catch {
            try? await database.close()
            throw error
        }
    }

    /// Opens the database and checks that it is reachable (one connection is opened now, so a wrong path, URL,
    /// password or a server that is down fails here with ``FoyerStorageError/openFailed(_:)``).
    ///
    /// SQLite: creates the file's directory if needed and the file, switches it to WAL. PostgreSQL: connects once.
    public static func open(_ configuration: DatabaseConfiguration, logger: Logger) async throws -> FoyerDatabase {
        try checkLimits(configuration.limits)
        var logger = logger
        logger[metadataKey: "database"] = "\(configuration.engine.kind)"

        let database: FoyerDatabase
        switch configuration.engine {
        case .sqlite(let path):
            database = try await openSQLite(path: path, configuration: configuration, logger: logger)
        case .postgres(let url):
            database = try await openPostgres(url: url, configuration: configuration, logger: logger)
        }
        logger.info("Opened database", metadata: ["location": "\(configuration)"])
        return database
    }

    /// Refuses limits the pools cannot work with.
    private static func checkLimits(_ limits: DatabaseConfiguration.Limits) throws {
        guard limits.postgresPoolSize >= 1, limits.sqliteReaderCount >= 1, limits.sqliteGroupCommitMaxTransactions >= 1
        else {
            throw FoyerStorageError.invalidConfiguration(
                "postgresPoolSize, sqliteReaderCount and sqliteGroupCommitMaxTransactions must be at least 1"
            )
        }
        guard limits.sqliteGroupCommitMaxDelay >= .zero else {
            throw FoyerStorageError.invalidConfiguration("sqliteGroupCommitMaxDelay must not be negative")
        }
        guard limits.connectTimeout > .zero, limits.acquireTimeout > .zero, limits.sqliteBusyTimeout >= .zero,
            (limits.postgresStatementTimeout ?? .seconds(1)) > .zero
        else {
            throw FoyerStorageError.invalidConfiguration("timeouts must be positive")
        }
    }

    /// Runs `body` with a connection for reads, outside any transaction (each statement sees the latest commits).
    ///
    /// Write in ``transaction(retryingSerializationFailures:_:)`` instead: on SQLite this connection is read-only
    /// (`PRAGMA query_only`), so a write here fails — on purpose, so that a store tested on both engines cannot
    /// write outside a transaction. Do not keep the connection beyond `body`.
    nonisolated(nonsending) public func withConnection<T>(
        _ body: nonisolated(nonsending) (any SQLDatabase) async throws -> T
    ) async throws -> T {
        try self.checkUsable()
        do {
            switch self.backend {
            case .sqlite(_, _, let readers, _):
                return try await readers.withConnection { connection in
                    // The body runs on the connection's thread, its statements plain calls there.
                    try await withTaskExecutorPreference(connection.thread) {
                        try await body(self.sql(on: connection))
                    }
                }
            case .postgres(let pool):
                return try await pool.withConnection { connection in
                    try await body(self.sql(on: connection))
                }
            }
        } catch {
            throw self.classified(error)
        }
    }

    /// `error`, or ``DatabaseUnavailable`` in its place when it says the database cannot serve calls now (logged as
    /// a warning: an operator sees the outage in the log, one line per failed call).
    private func classified(_ error: any Error) -> any Error {
        guard let unavailable = DatabaseUnavailable.classifying(error) else { return error }
        if !(error is DatabaseUnavailable) {
            self.logger.warning(
                "Database unavailable",
                metadata: ["reason": "\(unavailable.reason.rawValue)", "error": "\(unavailable.underlying)"]
            )
        }
        return unavailable
    }

    /// Runs `body` in a transaction and returns its result: COMMIT when it returns, ROLLBACK when anything throws
    /// (the error is rethrown unchanged). Run every statement of the transaction on the connection `body` receives.
    ///
    /// - SQLite: on the single writer connection; transactions of this process run one at a time, each in its own
    ///   savepoint of a batch that commits as one (``GroupCommitStatistics``); the result is returned once the
    ///   batch has committed.
    /// - PostgreSQL: `BEGIN` (READ COMMITTED) on a pooled connection. `UPDATE t SET n = n + 1` never loses updates;
    ///   for read-then-write logic lock the rows read with the query builder's `.for(.update)` (it renders
    ///   `FOR UPDATE` on PostgreSQL and nothing on SQLite, whose writers are serial anyway; never write `FOR UPDATE`
    ///   in raw SQL, SQLite rejects it), or use a conditional UPDATE.
    ///
    /// - Parameter retries: how many times to run the whole transaction again (after a short random pause) when it
    ///   fails with `DatabaseError.isSerializationFailure` (deadlock, serialization failure, SQLITE_BUSY). `body` must
    ///   then be safe to run more than once: no side effects outside the database.
    nonisolated(nonsending) public func transaction<T>(
        retryingSerializationFailures retries: Int = 0,
        _ body: nonisolated(nonsending) (any SQLDatabase) async throws -> T
    ) async throws -> T {
        var attempt = 0
        while true {
            do {
                return try await self.transactionOnce(body)
            } catch  where attempt < retries && DatabaseError.isSerializationFailure(error) {
                attempt += 1
                self.logger.debug(
                    "Retrying transaction after a concurrency conflict",
                    metadata: [
                        "attempt": "\(attempt)", "error": "\(String(reflecting: error))",
                    ]
                )
                let ceiling = min(100, 5 << min(attempt, 5))
                try await Task.sleep(for: .milliseconds(Int.random(in: 1...ceiling)))
            }
        }
    }

    nonisolated(nonsending) private func transactionOnce<T>(
        _ body: nonisolated(nonsending) (any SQLDatabase) async throws -> T
    ) async throws -> T {
        try self.checkUsable()
        let id = ObjectIdentifier(self)
        let inProgress = Self.transactionsInProgress
        let requested = ContinuousClock.now
        do {
            return try await Self.$transactionsInProgress.withValue(inProgress.union([id])) {
                switch self.backend {
                case .sqlite(_, let grouped, _, _):
                    try await self.runGrouped(on: grouped, requested: requested, body)
                case .postgres(let pool):
                    try await pool.withConnection { connection in
                        self.metrics.waited(since: requested)
                        return try await self.run(on: connection, body)
                    }
                }
            }
        } catch {
            throw self.classified(error)
        }
    }

    /// A PostgreSQL transaction on `connection`.
    nonisolated(nonsending) private func run<T>(
        on connection: PostgresConnection,
        _ body: nonisolated(nonsending) (any SQLDatabase) async throws -> T
    ) async throws -> T {
        let started = ContinuousClock.now
        let begun = try connection.begin(deadline: self.statementDeadline)
        do {
            let result = try await body(self.sql(on: connection))
            _ = try await begun.get()
            do {
                try await connection.commit(deadline: self.statementDeadline)
            } catch {
                throw Self.commitFailure(error, on: connection)
            }
            self.metrics.transacted(since: started, committed: true)
            return result
        } catch {
            self.metrics.transacted(since: started, committed: false)
            _ = try? await begun.get()
            do {
                try await connection.rollback(deadline: self.statementDeadline)
            } catch let rollbackError {
                // The connection may still be inside the transaction: never hand it out again.
                self.logger.warning(
                    "ROLLBACK failed; discarding the connection",
                    metadata: [
                        "error": "\(String(reflecting: rollbackError))"
                    ]
                )
                try? await connection.close()
            }
            throw error
        }
    }

    /// A SQLite transaction, grouped with the others waiting for the writer (see ``SQLiteGroupCommit``).
    nonisolated(nonsending) private func runGrouped<T>(
        on grouped: SQLiteGroupCommit,
        requested: ContinuousClock.Instant,
        _ body: nonisolated(nonsending) (any SQLDatabase) async throws -> T
    ) async throws -> T {
        var started = requested
        do {
            let result = try await grouped.transaction(
                turnTaken: {
                    started = .now
                    self.metrics.waited(since: requested)
                },
                sql: { connection in self.sql(on: connection) },
                body
            )
            self.metrics.transacted(since: started, committed: true)
            return result
        } catch {
            self.metrics.transacted(since: started, committed: false)
            throw error
        }
    }

    /// An SQLite connection's `SQLDatabase` for a store's statements.
    private func sql(on connection: FoyerSQLiteConnection) -> any SQLDatabase {
        FoyerSQLiteDatabase(
            connection: connection,
            logger: self.logger,
            queryLogLevel: self.configuration.queryLogLevel
        )
    }

    /// A PostgreSQL connection's `SQLDatabase` for a store's statements.
    private func sql(on connection: PostgresConnection) -> any SQLDatabase {
        connection.foyerSQL(
            logger: self.logger,
            queryLogLevel: self.configuration.queryLogLevel,
            deadline: self.statementDeadline
        )
    }

    /// The client's deadline on each PostgreSQL statement (``DatabaseConfiguration/Limits/postgresStatementTimeout``).
    private var statementDeadline: PostgresStatementDeadline {
        PostgresStatementDeadline(statementTimeout: self.configuration.limits.postgresStatementTimeout)
    }

    /// How the SQLite writer has grouped transactions into commits since the database opened (nil on PostgreSQL,
    /// whose server groups commits itself: see `commit_delay`).
    public var groupCommitStatistics: GroupCommitStatistics? {
        guard case .sqlite(_, let grouped, _, _) = self.backend else { return nil }
        return grouped.statistics
    }

    /// What a failed COMMIT means: PostgreSQL losing the connection while COMMIT was in flight, or not answering it
    /// within the statement deadline, leaves the outcome unknown (``FoyerStorageError/commitOutcomeUnknown(_:)``),
    /// never "unavailable"; any other failure (an SQLite
    /// COMMIT that failed, a full disk, a connection seen closed before COMMIT was written: ``DatabaseUnavailable``
    /// already) committed nothing and is passed on as it is.
    private static func commitFailure(_ error: any Error, on connection: PostgresConnection) -> any Error {
        let lostInFlight =
            !(error is DatabaseUnavailable) && DatabaseUnavailable.classifying(error)?.reason == .unreachable
        guard error is PostgresStatementDeadline.Exceeded || lostInFlight else {
            return error
        }
        return FoyerStorageError.commitOutcomeUnknown(String(reflecting: error))
    }

    /// Closes every connection (SQLite checkpoints the WAL into the file). Call it once the work is done (a
    /// connection still in use is closed when its body returns). Idempotent. Operations started after it throw
    /// ``FoyerStorageError/closed``.
    public func close() async throws {
        let alreadyClosed = self.isClosed.withLock { closed in
            defer { closed = true }
            return closed
        }
        guard !alreadyClosed else { return }
        switch self.backend {
        case .sqlite(let writer, _, let readers, let writerThread):
            try await readers.close()
            try await writer.close()
            writerThread.stop()
        case .postgres(let pool):
            try await pool.close()
        }
        self.logger.debug("Closed database")
    }

    deinit {
        // Forgetting close() must not crash the process (the pools assert that they were shut down): close them
        // now, without waiting. Connections still in use close when they are returned.
        guard !self.isClosed.withLock({ $0 }) else { return }
        self.logger.warning("FoyerDatabase was released without close(); closing its connections now")
        switch self.backend {
        case .sqlite(let writer, _, let readers, let writerThread):
            // The writer's thread stops only after the connection has closed on it.
            readers.closeWithoutWaiting().and(writer.closeWithoutWaiting()).whenComplete { _ in
                writerThread.stop()
            }
        case .postgres(let pool):
            _ = pool.closeWithoutWaiting()
        }
    }

    private func checkUsable() throws {
        if self.isClosed.withLock({ $0 }) {
            throw FoyerStorageError.closed
        }
        if Self.transactionsInProgress.contains(ObjectIdentifier(self)) {
            throw FoyerStorageError.nestedTransaction
        }
    }
}
