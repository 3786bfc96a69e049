import Foundation
import Logging
import PostgresKit
import SQLiteKit

/// A bounded pool of connections: AsyncKit's `EventLoopConnectionPool` (the pool postgres-kit and sqlite-kit are
/// built for) with an async check-out/check-in around a body.
///
/// `@unchecked Sendable`: the pool confines all of its mutable state to its one event loop (every public entry
/// point hops onto it), so it is safe to share; it only lacks the annotation.
struct ConnectionPool<Source: ConnectionPoolSource>: @unchecked Sendable where Source.Connection: Sendable {
    let pool: EventLoopConnectionPool<Source>
    let logger: Logger

    init(source: Source, maxConnections: Int, acquireTimeout: Duration, pruneIdle: Bool, logger: Logger) {
        self.logger = logger
        self.pool = EventLoopConnectionPool(
            source: source,
            maxConnections: maxConnections,
            requestTimeout: acquireTimeout.timeAmount,
            pruneInterval: pruneIdle ? .seconds(60) : nil,
            maxIdleTimeBeforePruning: .seconds(300),
            logger: logger,
            on: MultiThreadedEventLoopGroup.singleton.any()
        )
    }

    /// Checks a connection out (waiting at most the acquire timeout), runs `body`, and checks it back in, also when
    /// `body` throws. A connection the body closed is dropped by the pool and replaced on the next request.
    nonisolated(nonsending) func withConnection<R>(
        _ body: nonisolated(nonsending) (Source.Connection) async throws -> R
    ) async throws -> R {
        let connection = try await self.pool.requestConnection(logger: self.logger).get()
        do {
            let result = try await body(connection)
            self.pool.releaseConnection(connection, logger: self.logger)
            return result
        } catch {
            self.pool.releaseConnection(connection, logger: self.logger)
            throw error
        }
    }

    /// Checks a connection out (waiting at most the acquire timeout) for a caller that returns it with
    /// ``checkIn(_:)`` itself, on every path.
    func checkOut() async throws -> Source.Connection {
        try await self.pool.requestConnection(logger: self.logger).get()
    }

    func checkIn(_ connection: Source.Connection) {
        self.pool.releaseConnection(connection, logger: self.logger)
    }

    /// Closes idle connections now and busy ones when they are checked back in; the pool refuses new requests.
    func close() async throws {
        try await self.pool.close().get()
    }

    /// Starts closing without waiting (for `deinit`, which cannot wait).
    func closeWithoutWaiting() -> EventLoopFuture<Void> {
        self.pool.close()
    }
}

/// Opens SQLite connections on the data file with Foyer's pragmas.
struct SQLiteConnectionFactory: ConnectionPoolSource, Sendable {
    enum Role: Sendable { case writer, reader }

    let path: String
    let role: Role
    let busyTimeout: Duration
    let synchronous: DatabaseConfiguration.SQLiteSynchronous
    /// The database's own threads (one per connection): a statement that sleeps in SQLite's busy handler blocks
    /// its thread, and on a shared pool it could block the very connection that holds the lock it waits for.
    let threadPool: NIOThreadPool

    func makeConnection(logger: Logger, on eventLoop: any EventLoop) -> EventLoopFuture<SQLiteConnection> {
        eventLoop.makeFutureWithTask { try await self.open(logger: logger, on: eventLoop) }
    }

    private func open(logger: Logger, on eventLoop: any EventLoop) async throws -> SQLiteConnection {
        let connection = try await SQLiteConnection.open(
            storage: .file(path: self.path),
            threadPool: self.threadPool,
            logger: logger,
            on: eventLoop
        )
        do {
            // busy_timeout first: it replaces sqlite-nio's retry-forever busy handler with a bounded, sleeping one,
            // and lets the journal_mode switch wait for a lock held elsewhere.
            let busyMilliseconds = max(0, Int(self.busyTimeout.milliseconds))
            _ = try await connection.query("PRAGMA busy_timeout = \(busyMilliseconds)")
            if self.role == .writer {
                let rows = try await connection.query("PRAGMA journal_mode = WAL")
                let mode = rows.first?.column("journal_mode")?.string?.lowercased()
                guard mode == "wal" else {
                    throw FoyerStorageError.openFailed(
                        "sqlite:\(self.path): could not switch to WAL journal mode (got \(mode ?? "nothing"))"
                    )
                }
            }
            _ = try await connection.query("PRAGMA synchronous = \(self.synchronous.rawValue)")
            _ = try await connection.query("PRAGMA foreign_keys = ON")
            if self.role == .reader {
                // Reads only: a write through withConnection fails loudly on SQLite instead of racing the writer.
                _ = try await connection.query("PRAGMA query_only = ON")
            }
            return connection
        } catch {
            try? await connection.close()
            throw error
        }
    }
}

/// A connection checked out of one of the pools.
enum PooledConnection: Sendable {
    case sqlite(SQLiteConnection)
    case postgres(PostgresConnection)

    func sql(logger: Logger, queryLogLevel: Logger.Level?) -> any SQLDatabase {
        switch self {
        case .sqlite(let connection):
            connection.logging(to: logger).sql(encoder: .init(), decoder: .init(), queryLogLevel: queryLogLevel)
        case .postgres(let connection):
            OpenPostgresSQLDatabase(
                connection: connection,
                base: connection.sql(queryLogLevel: queryLogLevel, logger: logger)
            )
        }
    }

    /// SQLite: `BEGIN IMMEDIATE` takes the write lock up front, so writers queue (up to busy_timeout) instead of
    /// failing with SQLITE_BUSY when a read transaction tries to upgrade. PostgreSQL: `BEGIN` (READ COMMITTED).
    func begin() async throws {
        switch self {
        case .sqlite(let connection): _ = try await connection.query("BEGIN IMMEDIATE")
        case .postgres(let connection):
            try connection.ensureOpen()
            _ = try await connection.query("BEGIN" as String).get()
        }
    }

    func commit() async throws {
        switch self {
        case .sqlite(let connection):
            _ = try await connection.query("COMMIT")
        case .postgres(let connection):
            // PostgreSQL answers COMMIT of an aborted transaction with the tag ROLLBACK and no error.
            try connection.ensureOpen()
            let result = try await connection.query("COMMIT" as String).get()
            if result.metadata.command == "ROLLBACK" {
                throw FoyerStorageError.transactionAborted
            }
        }
    }

    func rollback() async throws {
        switch self {
        case .sqlite(let connection): _ = try await connection.query("ROLLBACK")
        case .postgres(let connection):
            try connection.ensureOpen()
            _ = try await connection.query("ROLLBACK" as String).get()
        }
    }

    /// Closes the connection so the pool drops it (used when its state is unknown after a failed ROLLBACK).
    func discard() async {
        switch self {
        case .sqlite(let connection): try? await connection.close()
        case .postgres(let connection): try? await connection.close()
        }
    }
}

extension Duration {
    var milliseconds: Int64 {
        let (seconds, attoseconds) = self.components
        return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
    }

    var timeAmount: TimeAmount {
        let (seconds, attoseconds) = self.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
