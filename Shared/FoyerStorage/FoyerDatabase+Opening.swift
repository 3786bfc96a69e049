import Foundation
import Logging
import PostgresKit

/// Opening a database on either engine: the pools, their first connection, the engine's settings.
extension FoyerDatabase {
    /// Creates the file's directory, builds the writer and reader pools on the database's own threads, and opens
    /// the writer (which creates the file and switches it to WAL) and one reader.
    static func openSQLite(
        path: String,
        configuration: DatabaseConfiguration,
        logger: Logger
    ) async throws -> FoyerDatabase {
        guard !path.isEmpty else {
            throw FoyerStorageError.invalidConfiguration("empty SQLite path")
        }
        try createDirectory(containing: path)
        let limits = configuration.limits
        let writerThread = SQLiteThread(name: "sqlite-writer")
        let options = FoyerSQLiteConnection.Options(
            busyTimeout: limits.sqliteBusyTimeout,
            synchronous: configuration.sqliteSynchronous
        )
        func pool(_ role: FoyerSQLiteConnection.Role, maxConnections: Int) -> ConnectionPool<SQLiteConnectionFactory> {
            ConnectionPool(
                source: SQLiteConnectionFactory(
                    path: path,
                    role: role,
                    options: options,
                    writerThread: role == .writer ? writerThread : nil
                ),
                maxConnections: maxConnections,
                acquireTimeout: limits.acquireTimeout,
                pruneIdle: role == .reader,
                logger: logger
            )
        }
        let writer = pool(.writer, maxConnections: 1)
        let readers = pool(.reader, maxConnections: limits.sqliteReaderCount)
        let database = FoyerDatabase(
            configuration: configuration,
            logger: logger,
            backend: .sqlite(
                writer: writer,
                grouped: SQLiteGroupCommit(
                    writer: writer,
                    thread: writerThread,
                    limits: .init(
                        maxTransactions: limits.sqliteGroupCommitMaxTransactions,
                        maxDelay: limits.sqliteGroupCommitMaxDelay
                    ),
                    acquireTimeout: limits.acquireTimeout
                ),
                readers: readers,
                writerThread: writerThread
            )
        )
        do {
            // The writer first: it creates the file and switches it to WAL before any reader opens it.
            try await writer.withConnection { _ in }
            try await database.withConnection { sql in
                try await sql.raw("SELECT count(*) FROM sqlite_master").run()
            }
        } catch let error as FoyerStorageError {
            try? await database.close()
            throw error
        } catch {
            try? await database.close()
            throw FoyerStorageError.openFailed("sqlite:\(path): \(error)")
        }
        return database
    }

    /// Creates the directory an SQLite file lives in, if it is missing.
    private static func createDirectory(containing path: String) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw FoyerStorageError.openFailed("sqlite:\(path): cannot create directory \(directory.path): \(error)")
        }
    }

    /// Builds the PostgreSQL pool and opens one connection.
    static func openPostgres(
        url: String,
        configuration: DatabaseConfiguration,
        logger: Logger
    ) async throws -> FoyerDatabase {
        let redacted = DatabaseConfiguration.redactingPassword(in: url)
        let pool = ConnectionPool(
            source: PostgresConnectionSource(
                sqlConfiguration: try postgresConfiguration(url: url, configuration: configuration)
            ),
            maxConnections: configuration.limits.postgresPoolSize,
            acquireTimeout: configuration.limits.acquireTimeout,
            pruneIdle: true,
            logger: logger
        )
        let database = FoyerDatabase(configuration: configuration, logger: logger, backend: .postgres(pool))
        do {
            try await pool.withConnection { connection in _ = try await connection.query("SELECT 1" as String).get() }
        } catch {
            try? await database.close()
            throw FoyerStorageError.openFailed("\(redacted): \(String(reflecting: error))")
        }
        return database
    }

    /// The driver's configuration for `url`: connect timeout, statement timeout and schema from `configuration`.
    private static func postgresConfiguration(
        url: String,
        configuration: DatabaseConfiguration
    ) throws -> SQLPostgresConfiguration {
        var sqlConfiguration: SQLPostgresConfiguration
        do {
            sqlConfiguration = try SQLPostgresConfiguration(url: url)
        } catch {
            let redacted = DatabaseConfiguration.redactingPassword(in: url)
            throw FoyerStorageError.invalidConfiguration("'\(redacted)' is not a usable PostgreSQL URL")
        }
        sqlConfiguration.coreConfiguration.options.connectTimeout = configuration.limits.connectTimeout.timeAmount
        if let timeout = configuration.limits.postgresStatementTimeout {
            // In milliseconds, for the whole session: every statement of every transaction on the connection.
            sqlConfiguration.coreConfiguration.options.additionalStartupParameters.append(
                ("statement_timeout", "\(max(1, timeout.milliseconds))")
            )
        }
        if let schema = configuration.postgresSchema {
            sqlConfiguration.searchPath = [schema]
        }
        return sqlConfiguration
    }
}
