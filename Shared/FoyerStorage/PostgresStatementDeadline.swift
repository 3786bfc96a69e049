import NIOCore
import PostgresNIO

/// The client side of the PostgreSQL statement timeout: a statement that has had no answer this long after it was
/// sent fails with ``PostgresStatementDeadline/Exceeded`` (``DatabaseUnavailable``, `timed-out`), and its connection
/// is closed, so the pool never hands it out again.
///
/// The server enforces `statement_timeout` itself (set on every connection: ``DatabaseConfiguration/Limits``); this
/// deadline, a grace later, covers what the server cannot: a server or a network that stopped answering, and a
/// statement PostgresNIO dropped because its connection closed as it was written (OpenPostgresSQLDatabase.swift),
/// whose answer would never come.
struct PostgresStatementDeadline: Sendable {
    /// How long a statement may go unanswered; `nil`: for ever.
    let limit: Duration?

    /// A deadline `grace` after the server's `statement_timeout` of `statementTimeout` (none without one).
    init(statementTimeout: Duration?, grace: Duration = Self.grace) {
        self.limit = statementTimeout.map { $0 + grace }
    }

    /// How much longer than the server's timeout the client waits: the cancelled statement's error has to travel
    /// back, and a busy server takes a moment to notice.
    static let grace: Duration = .seconds(2)

    /// `statement()`'s answer, or the deadline's error if it has not come within ``limit`` (the connection is then
    /// closed; the statement's own answer, if it ever comes, is ignored).
    func run<T>(on connection: PostgresConnection, _ statement: () -> EventLoopFuture<T>) -> EventLoopFuture<T> {
        let answer = statement()
        guard let limit else { return answer }
        let eventLoop = answer.eventLoop
        let promise = eventLoop.makePromise(of: T.self)
        let timer = eventLoop.scheduleTask(in: limit.timeAmount) {
            promise.fail(Exceeded(limit: limit))
            connection.close().whenComplete { _ in }
        }
        answer.whenComplete { result in
            timer.cancel()
            promise.completeWith(result)
        }
        return promise.futureResult
    }

    /// A statement had no answer within the deadline; whether it ran is unknown.
    struct Exceeded: Error, CustomStringConvertible {
        let limit: Duration
        var description: String { "PostgreSQL did not answer a statement within \(limit); the connection was closed" }
    }
}
