import Foundation
import Logging
import PostgresKit

/// A bounded pool of connections: AsyncKit's `EventLoopConnectionPool` (the pool postgres-kit and sqlite-kit are
/// built for) with an async check-out/check-in around a body.
///
/// `@unchecked Sendable`: the pool confines all of its mutable state to its one event loop (every public entry
/// point hops onto it), so it is safe to share; it only lacks the annotation.
struct ConnectionPool<Source: ConnectionPoolSource>: @unchecked Sendable where Source.Connection: Sendable {
    let pool: EventLoopConnectionPool<TrackedConnectionSource<Source>>
    let logger: Logger
    /// The connections being opened, which ``close()`` waits for.
    private let opening = OpeningConnections<Source.Connection>()

    init(source: Source, maxConnections: Int, acquireTimeout: Duration, pruneIdle: Bool, logger: Logger) {
        self.logger = logger
        self.pool = EventLoopConnectionPool(
            source: TrackedConnectionSource(source: source, opening: self.opening),
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

    /// Closes idle connections now, and those still being opened once they are open (waiting for both), and busy
    /// ones when they are checked back in; the pool refuses new requests.
    func close() async throws {
        try await self.pool.close().get()
        await self.opening.closeAll()
    }

    /// Starts closing without waiting (for `deinit`, which cannot wait).
    func closeWithoutWaiting() -> EventLoopFuture<Void> {
        self.pool.close()
    }
}

/// Opens SQLite connections on the data file with Foyer's pragmas, each on a thread of its own: the writer's on the
/// one writer thread (``SQLiteGroupCommit`` runs every transaction there), each reader's on a thread that lives as
/// long as the connection.
///
/// A thread per connection: a statement that sleeps in SQLite's busy handler blocks its thread, and on a shared
/// thread it could block the very connection that holds the lock it waits for.
struct SQLiteConnectionFactory: ConnectionPoolSource, Sendable {
    let path: String
    let role: FoyerSQLiteConnection.Role
    let options: FoyerSQLiteConnection.Options
    /// The writer's thread; `nil` for readers, which start one per connection.
    let writerThread: SQLiteThread?

    func makeConnection(logger: Logger, on eventLoop: any EventLoop) -> EventLoopFuture<FoyerSQLiteConnection> {
        eventLoop.makeFutureWithTask {
            let thread = self.writerThread ?? SQLiteThread(name: "sqlite-reader")
            do {
                return try await FoyerSQLiteConnection.open(
                    path: self.path,
                    role: self.role,
                    thread: thread,
                    ownsThread: self.writerThread == nil,
                    options: self.options,
                    eventLoop: eventLoop
                )
            } catch {
                if self.writerThread == nil { thread.stop() }
                throw error
            }
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
