import AsyncKit
import Foundation
import Logging
import NIOCore
import NIOPosix
import SQLKit
import Synchronization

/// Group commit on the SQLite writer: the transactions that queue for the writer while one runs become one physical
/// transaction with one COMMIT, so one fsync (with `synchronous=FULL`) covers them all.
///
/// ## How
/// The transactions of this process take turns on the writer, first come first served. The first of a batch runs
/// `BEGIN IMMEDIATE`; every transaction, the first included, runs its body inside its own `SAVEPOINT`, then
/// `RELEASE`s it, or on any error `ROLLBACK TO` it, which undoes that transaction's statements alone. It then looks
/// at the queue:
/// - someone is waiting, and the batch holds fewer than `maxTransactions` and began less than `maxDelay` ago: it
///   hands the writer to the next in line and waits for the batch's COMMIT;
/// - otherwise it runs `COMMIT` and wakes every transaction that waited, with the outcome.
///
/// No transaction waits for company: a batch holds only those that were already queued, so an idle database commits
/// each transaction at once, exactly as before, and a busy one commits fewer, larger transactions.
///
/// ## What stays true
/// - Nothing is acknowledged before its COMMIT has returned (its fsync, with `synchronous=FULL`): a transaction whose
///   body succeeded returns only after the batch's COMMIT succeeded.
/// - One transaction's failure never undoes another's: its savepoint is rolled back, the batch goes on.
/// - If the COMMIT itself fails, or SQLite has rolled the whole transaction back (it may, after `SQLITE_FULL` or an
///   I/O error), every transaction of the batch fails with that error and none of them is kept: a caller is never
///   told "done" for a write that was lost.
/// - A transaction that failed also waits for the batch's outcome before it reports its error: it may have read
///   rows of earlier transactions of the batch, and those are only real once committed. If the COMMIT fails, it
///   reports the COMMIT's failure instead.
///
/// ## Where
/// Everything of a transaction runs on the writer's thread (``SQLiteThread``): its turn, its statements, its COMMIT.
/// A transaction costs one move there and one back to its caller, whatever number of statements it runs; a turn
/// handed on wakes a job on the same thread, not another thread.
///
/// ## What changes
/// - A transaction may read rows written by an earlier transaction of its batch before they are committed (only
///   this process writes through this writer, and those rows commit with it or not at all).
/// - Deferred constraints (`DEFERRABLE INITIALLY DEFERRED`) would be checked at the batch's COMMIT and fail the whole
///   batch. No Foyer schema uses them; a schema that needs them should not run on a grouped writer.
final class SQLiteGroupCommit: Sendable {
    /// Bounds on one batch.
    struct Limits: Sendable {
        /// Most transactions in one physical transaction (1: no grouping).
        var maxTransactions: Int
        /// A batch that began this long ago takes no one else: the first transaction of a batch waits at most about
        /// this long, plus the last body's own time, for its COMMIT.
        var maxDelay: Duration
    }

    private struct Waiter {
        let id: UInt64
        let deadline: NIODeadline
        let continuation: CheckedContinuation<Void, any Error>
    }

    /// What a transaction that finished its body is told to do.
    private enum Turn {
        /// Commit the batch: nobody is waiting, or the batch is full or old.
        case commit
        /// The batch was committed by a later transaction.
        case committed
    }

    private struct Batch {
        let connection: FoyerSQLiteConnection
        let began: ContinuousClock.Instant
        var size = 0
        /// The transactions of this batch that handed the writer on and wait for the COMMIT.
        var parked: [CheckedContinuation<Turn, any Error>] = []
    }

    private struct State {
        var turnTaken = false
        /// First in line at `head`.
        var waiting: [Waiter] = []
        var head = 0
        var nextWaiterID: UInt64 = 0
        var sweepScheduled = false
        var batch: Batch?
        var statistics = GroupCommitStatistics()

        var waitingCount: Int { waiting.count - head }

        mutating func popWaiter() -> Waiter? {
            guard head < waiting.count else { return nil }
            let waiter = waiting[head]
            head += 1
            if head > 64, head * 2 > waiting.count {
                waiting.removeFirst(head)
                head = 0
            }
            return waiter
        }
    }

    private static let savepoint = "foyer_grouped"

    private let writer: ConnectionPool<SQLiteConnectionFactory>
    /// The thread every writer connection runs on (one connection at a time).
    private let thread: SQLiteThread
    private let limits: Limits
    private let acquireTimeout: Duration
    private let state = Mutex(State())

    init(
        writer: ConnectionPool<SQLiteConnectionFactory>,
        thread: SQLiteThread,
        limits: Limits,
        acquireTimeout: Duration
    ) {
        precondition(limits.maxTransactions >= 1, "a batch holds at least one transaction")
        self.writer = writer
        self.thread = thread
        self.limits = limits
        self.acquireTimeout = acquireTimeout
    }

    var statistics: GroupCommitStatistics {
        state.withLock { state in
            var statistics = state.statistics
            statistics.waiting = state.waitingCount
            return statistics
        }
    }

    /// Runs `body` as one transaction of the current batch (see the type's documentation) and returns its result
    /// once the batch has committed.
    ///
    /// - Parameters:
    ///   - turnTaken: called once this transaction has the writer (for the pool-wait metric).
    ///   - sql: the `SQLDatabase` of the writer connection that `body` is given.
    nonisolated(nonsending) func transaction<T>(
        turnTaken: () -> Void,
        sql: (FoyerSQLiteConnection) -> any SQLDatabase,
        _ body: nonisolated(nonsending) (any SQLDatabase) async throws -> T
    ) async throws -> T {
        try await withTaskExecutorPreference(self.thread) {
            try await self.takeTurn()
            turnTaken()
            let connection: FoyerSQLiteConnection
            do {
                connection = try await self.openBatchConnection()
            } catch {
                self.passTurn()
                throw error
            }
            return try await self.run(body, on: connection, sql: sql)
        }
    }

    /// Runs `body` in its savepoint of the open batch, then hands the writer on or commits (on the writer's thread).
    private func run<T>(
        _ body: nonisolated(nonsending) (any SQLDatabase) async throws -> T,
        on connection: FoyerSQLiteConnection,
        sql: (FoyerSQLiteConnection) -> any SQLDatabase
    ) async throws -> T {
        let outcome: Result<T, any Error>
        do {
            try connection.run("SAVEPOINT \(Self.savepoint)")
            let result = try await body(sql(connection))
            try connection.run("RELEASE \(Self.savepoint)")
            outcome = .success(result)
        } catch let bodyError {
            do {
                try connection.run("ROLLBACK TO \(Self.savepoint)")
                try connection.run("RELEASE \(Self.savepoint)")
                outcome = .failure(bodyError)
            } catch {
                // The physical transaction is gone or unusable (SQLite rolls it back by itself after some errors,
                // SQLITE_FULL and I/O errors among them): none of the batch's work is kept, and everyone in it is
                // told why, with the error that broke it.
                self.state.withLock { $0.statistics.transactions += 1 }
                await self.endBatch(on: connection, failure: bodyError)
                throw bodyError
            }
        }

        let turn: Turn = try await withCheckedThrowingContinuation { continuation in
            let next: Waiter? = self.state.withLock { state in
                state.statistics.transactions += 1
                state.batch!.size += 1
                let batch = state.batch!
                let full =
                    batch.size >= self.limits.maxTransactions
                    || ContinuousClock.now - batch.began >= self.limits.maxDelay
                guard !full, let next = state.popWaiter() else { return nil }
                state.batch!.parked.append(continuation)
                return next
            }
            if let next {
                next.continuation.resume()  // the writer is theirs; this one waits for the COMMIT
            } else {
                continuation.resume(returning: .commit)
            }
        }
        if case .commit = turn {
            let failure: (any Error)?
            do {
                try connection.run("COMMIT")
                failure = nil
            } catch {
                failure = error
            }
            await self.endBatch(on: connection, failure: failure)
            if let failure { throw failure }
        }
        return try outcome.get()
    }

    /// The writer connection of the open batch, or a new batch's: checked out of the pool, `BEGIN IMMEDIATE` run.
    private func openBatchConnection() async throws -> FoyerSQLiteConnection {
        if let open = self.state.withLock({ $0.batch?.connection }) {
            return open
        }
        let connection = try await self.writer.checkOut()
        do {
            try connection.run("BEGIN IMMEDIATE")
        } catch {
            self.writer.checkIn(connection)
            throw error
        }
        self.state.withLock { $0.batch = Batch(connection: connection, began: .now) }
        return connection
    }

    /// Ends the open batch: after a failure rolls back what is left of it (closing the connection if even that
    /// fails), then returns the connection, tells every parked transaction the outcome and hands the writer on.
    private func endBatch(on connection: FoyerSQLiteConnection, failure: (any Error)?) async {
        if failure != nil {
            do {
                // Fails harmlessly ("no transaction is active") when SQLite has already rolled back.
                try connection.run("ROLLBACK")
            } catch {
                if !Self.isNoTransactionActive(error) {
                    try? await connection.close().get()
                }
            }
        }
        let (parked, size) = self.state.withLock { state in
            state.statistics.commits += failure == nil ? 1 : 0
            let batch = state.batch
            state.batch = nil
            return (batch?.parked ?? [], batch?.size ?? 0)
        }
        if failure == nil { DatabaseMetrics.committedBatch(of: size) }
        self.writer.checkIn(connection)
        for transaction in parked {
            if let failure {
                transaction.resume(throwing: failure)
            } else {
                transaction.resume(returning: .committed)
            }
        }
        self.passTurn()
    }

    private static func isNoTransactionActive(_ error: any Error) -> Bool {
        "\(error)".contains("no transaction is active")
    }

    // MARK: Turns

    /// Waits, first come first served, until this transaction has the writer (at most the acquire timeout).
    private func takeTurn() async throws {
        let free = self.state.withLock { state in
            guard !state.turnTaken else { return false }
            state.turnTaken = true
            return true
        }
        if free { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let (granted, scheduleSweep) = self.state.withLock { state -> (Bool, Bool) in
                if !state.turnTaken {
                    state.turnTaken = true
                    return (true, false)
                }
                state.nextWaiterID += 1
                state.waiting.append(
                    Waiter(
                        id: state.nextWaiterID,
                        deadline: .now() + self.acquireTimeout.timeAmount,
                        continuation: continuation
                    )
                )
                defer { state.sweepScheduled = true }
                return (false, !state.sweepScheduled)
            }
            if granted {
                continuation.resume()
            } else if scheduleSweep {
                self.scheduleSweep(in: self.acquireTimeout.timeAmount)
            }
        }
    }

    /// Gives the writer to the next in line, or frees it.
    private func passTurn() {
        let next = self.state.withLock { state in
            let next = state.popWaiter()
            if next == nil { state.turnTaken = false }
            return next
        }
        next?.continuation.resume()
    }

    /// One timer at a time fails the waiters whose deadline has passed (the front of the line has the earliest).
    private func scheduleSweep(in delay: TimeAmount) {
        MultiThreadedEventLoopGroup.singleton.any().scheduleTask(in: delay) { self.sweep() }
    }

    private func sweep() {
        let now = NIODeadline.now()
        let (expired, nextDeadline) = self.state.withLock { state -> ([Waiter], NIODeadline?) in
            var expired: [Waiter] = []
            while state.head < state.waiting.count, state.waiting[state.head].deadline <= now {
                expired.append(state.popWaiter()!)
            }
            let nextDeadline = state.head < state.waiting.count ? state.waiting[state.head].deadline : nil
            state.sweepScheduled = nextDeadline != nil
            return (expired, nextDeadline)
        }
        for waiter in expired {
            waiter.continuation.resume(throwing: ConnectionPoolTimeoutError.connectionRequestTimeout)
        }
        if let nextDeadline {
            self.scheduleSweep(in: max(nextDeadline - now, .milliseconds(1)))
        }
    }
}

/// How a SQLite database's writer has grouped its transactions since the database opened
/// (``FoyerDatabase/groupCommitStatistics``).
public struct GroupCommitStatistics: Sendable, Equatable {
    /// Transactions that ran on the writer, committed or not.
    public var transactions = 0
    /// Physical COMMITs that succeeded. `transactions / commits` is the mean batch size.
    public var commits = 0
    /// Transactions waiting for the writer now.
    public var waiting = 0
}
