import AsyncKit
import Logging
import NIOCore
import Synchronization

/// The connections a pool's source is opening right now, so that closing the pool can wait for them.
///
/// AsyncKit's pool, closed while a connection is being opened, returns at once: the connection, once open, is
/// closed when it arrives, but nobody waits for that. A database closed in that instant would report itself closed
/// while a connection of it is still open (to PostgreSQL: a server connection that outlives `close()`, still
/// counted against `max_connections`, and a process that may exit with it half-open). With this registry,
/// ``ConnectionPool/close()`` waits until every connection opened before the close is closed.
final class OpeningConnections<Connection: ConnectionPoolItem>: Sendable where Connection: Sendable {
    private struct State {
        var opening: [UInt64: EventLoopFuture<Connection>] = [:]
        var nextID: UInt64 = 0
        var closed = false
    }

    private let state = Mutex(State())

    /// Records `opening` until it completes. Once the pool is closing, refuses: the pool closes what arrives anyway.
    func track(_ opening: EventLoopFuture<Connection>) {
        let id: UInt64? = self.state.withLock { state in
            guard !state.closed else { return nil }
            state.nextID += 1
            state.opening[state.nextID] = opening
            return state.nextID
        }
        guard let id else { return }
        opening.whenComplete { _ in self.state.withLock { _ = $0.opening.removeValue(forKey: id) } }
    }

    /// Stops tracking and waits for every connection still being opened: each that opens is closed (if the pool
    /// has not closed it yet) and waited for; one that fails to open needs nothing.
    func closeAll() async {
        let opening = self.state.withLock { state in
            state.closed = true
            return Array(state.opening.values)
        }
        for future in opening {
            guard let connection = try? await future.get() else { continue }
            try? await connection.close().get()
        }
    }
}

/// A pool source that reports each connection it starts opening to an ``OpeningConnections``.
struct TrackedConnectionSource<Source: ConnectionPoolSource>: ConnectionPoolSource where Source.Connection: Sendable {
    let source: Source
    let opening: OpeningConnections<Source.Connection>

    func makeConnection(logger: Logger, on eventLoop: any EventLoop) -> EventLoopFuture<Source.Connection> {
        let connection = self.source.makeConnection(logger: logger, on: eventLoop)
        self.opening.track(connection)
        return connection
    }
}
