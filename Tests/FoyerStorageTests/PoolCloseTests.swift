import AsyncKit
import Foundation
import FoyerTestSupport
import Logging
import NIOCore
import PostgresKit
import Synchronization
import Testing

@testable import FoyerStorage

/// Closing a pool while connections are being opened: `close()` returns only once none of them is open.
@Suite("Closing a pool while it opens connections")
struct PoolCloseTests {
    @Test("close() waits for the connections being opened and closes them", .timeLimit(.minutes(1)))
    func closeWaitsForOpeningConnections() async throws {
        guard let url = ProcessInfo.processInfo.environment[postgresURLVariable], !url.isEmpty else {
            throw TestDatabaseError.postgresURLMissing
        }
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let source = SlowSource(
            base: PostgresConnectionSource(sqlConfiguration: try SQLPostgresConfiguration(url: url)),
            started: startedContinuation
        )
        let pool = ConnectionPool(
            source: source,
            maxConnections: 3,
            acquireTimeout: .seconds(30),
            pruneIdle: false,
            logger: testDatabaseLogger
        )
        try await withThrowingTaskGroup(of: Void.self) { group in
            // Given three callers whose connections are being opened
            for _ in 0..<3 {
                group.addTask { _ = try? await pool.withConnection { _ in } }
            }
            var opening = 0
            for await _ in started {
                opening += 1
                if opening == 3 { break }
            }
            // When the pool closes meanwhile
            try await pool.close()
            // Then no connection of it is open, nor still being opened, once close() has returned.
            #expect(source.notClosed == 0)
            try await group.waitForAll()
        }
    }
}

/// Opens each connection a moment late (so that a close can come while it is opening) and counts the connections
/// begun and not closed yet. `@unchecked Sendable`: `base` is immutable (PostgresKit does not mark it Sendable),
/// the count is a Mutex.
final class SlowSource: ConnectionPoolSource, @unchecked Sendable {
    let base: PostgresConnectionSource
    let started: AsyncStream<Void>.Continuation
    private let open = Mutex(0)

    init(base: PostgresConnectionSource, started: AsyncStream<Void>.Continuation) {
        self.base = base
        self.started = started
    }

    /// Connections begun and not closed (or failed) yet.
    var notClosed: Int { self.open.withLock { $0 } }

    func makeConnection(logger: Logger, on eventLoop: any EventLoop) -> EventLoopFuture<PostgresConnection> {
        self.open.withLock { $0 += 1 }
        self.started.yield()
        let connection = eventLoop.scheduleTask(in: .milliseconds(300)) {}.futureResult.flatMap {
            self.base.makeConnection(logger: logger, on: eventLoop)
        }
        connection.whenComplete { result in
            switch result {
            case .success(let connection):
                connection.closeFuture.whenComplete { _ in self.open.withLock { $0 -= 1 } }
            case .failure:
                self.open.withLock { $0 -= 1 }
            }
        }
        return connection
    }
}
