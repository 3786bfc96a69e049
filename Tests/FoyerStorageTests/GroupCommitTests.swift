import Foundation
import FoyerStorage
import FoyerTestSupport
import SQLKit
import Testing

/// SQLite's group commit (GroupCommit.swift): transactions that queue for the writer share one COMMIT, each in its
/// own savepoint.
@Suite("Group commit")
struct GroupCommitTests {
    @Test("one at a time, every transaction commits alone")
    func idleDatabaseCommitsEachTransaction() async throws {
        try await withTestDatabase(.sqlite) { db in
            try await db.migrate(service: "test", migrations: [itemsMigration])
            let before = try #require(db.groupCommitStatistics)
            for id in 1...5 {
                try await db.transaction { sql in try await insertItem(sql, id: id, label: "item \(id)") }
            }
            let after = try #require(db.groupCommitStatistics)
            #expect(after.transactions - before.transactions == 5)
            #expect(after.commits - before.commits == 5)
            #expect(after.waiting == 0)
        }
    }

    @Test("90 queued transactions, every third failing: 3 commits; each failure undoes only its own rows")
    func queuedTransactionsShareCommits() async throws {
        try await withGroupedDatabase(maxTransactions: 32) { db in
            try await db.migrate(service: "test", migrations: [itemsMigration])
            let before = try #require(db.groupCommitStatistics)
            let (holder, outcomes) = try await whileWriterHeld(db, until: 89) { db in
                await withTaskGroup(of: (Int, Bool).self) { group in
                    for id in 1...89 {
                        group.addTask {
                            let result = await capturing {
                                try await db.transaction { sql in
                                    try await insertItem(sql, id: id, label: "item \(id)")
                                    try await insertItem(sql, id: 1_000 + id, label: "second \(id)")
                                    if id % 3 == 0 { throw IntentionalFailure() }
                                }
                            }
                            if case .failure(let error) = result { #expect(error as? IntentionalFailure != nil) }
                            return (id, (try? result.get()) != nil)
                        }
                    }
                    return await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
                }
            }
            #expect((try? holder.get()) != nil)
            for (id, committed) in outcomes { #expect(committed == (id % 3 != 0), "transaction \(id)") }

            let ids = try await db.withConnection { sql in
                try await sql.raw("SELECT id FROM items WHERE id < 1000 ORDER BY id").all(
                    decodingColumn: "id",
                    as: Int.self
                )
            }
            #expect(ids == [0] + (1...89).filter { $0 % 3 != 0 })
            #expect(try await rowCount(db, "items") == 1 + 2 * 60)

            // The holder and the 89 queued behind it: batches of 32, 32 and 26.
            let after = try #require(db.groupCommitStatistics)
            #expect(after.transactions - before.transactions == 90)
            #expect(after.commits - before.commits == 3)
        }
    }

    @Test("a COMMIT that fails fails every transaction of its batch, keeps none, and the next batch works")
    func failedCommitFailsTheWholeBatch() async throws {
        try await withGroupedDatabase(maxTransactions: 32) { db in
            try await db.migrate(service: "test", migrations: [itemsMigration, deferredChildrenMigration])
            // A deferred foreign key is checked at COMMIT only: the batch's COMMIT fails.
            let (holder, queued) = try await whileWriterHeld(db, until: 3) { db in
                await withTaskGroup(of: Result<Void, any Error>.self) { group in
                    for id in 1...3 {
                        group.addTask {
                            await capturing {
                                try await db.transaction { sql in
                                    if id == 2 {
                                        try await sql.raw("INSERT INTO children (id, parent) VALUES (1, 404)").run()
                                    } else {
                                        try await insertItem(sql, id: id, label: "item \(id)")
                                    }
                                }
                            }
                        }
                    }
                    return await group.reduce(into: []) { $0.append($1) }
                }
            }
            #expect(queued.count == 3)
            for outcome in [holder] + queued {
                guard case .failure(let error) = outcome else {
                    Issue.record("a transaction of the failed batch reported success")
                    continue
                }
                #expect(DatabaseError.isForeignKeyViolation(error))
            }
            // The holder was part of the failed batch too: nothing of the batch is kept.
            #expect(try await rowCount(db, "items") == 0)
            #expect(try await rowCount(db, "children") == 0)

            try await db.transaction { sql in try await insertItem(sql, id: 7, label: "after") }
            #expect(try await rowCount(db, "items") == 1)
        }
    }

    @Test("a transaction waiting for the writer longer than the acquire timeout fails as unavailable")
    func waitingIsBounded() async throws {
        try await withGroupedDatabase(maxTransactions: 32, acquireTimeout: .milliseconds(200)) { db in
            try await db.migrate(service: "test", migrations: [itemsMigration])
            let (held, signal) = AsyncStream<Void>.makeStream()
            let holder = Task {
                try await db.transaction { sql in
                    try await insertItem(sql, id: 1, label: "held")
                    signal.yield()
                    try await Task.sleep(for: .seconds(1))
                }
            }
            var iterator = held.makeAsyncIterator()
            await iterator.next()
            await #expect(throws: DatabaseUnavailable.self) {
                try await db.transaction { sql in try await insertItem(sql, id: 2, label: "late") }
            }
            try await holder.value
            #expect(db.groupCommitStatistics?.waiting == 0)
            try await db.transaction { sql in try await insertItem(sql, id: 3, label: "later") }
            #expect(try await rowCount(db, "items") == 2)
        }
    }

    @Test("PostgreSQL groups commits itself: no statistics")
    func postgresHasNoGroupCommitStatistics() async throws {
        try await withTestDatabase(.postgres) { db in
            #expect(db.groupCommitStatistics == nil)
        }
    }
}

/// `children (id, parent)` whose foreign key to `items` is checked at COMMIT.
private let deferredChildrenMigration = Migration(
    version: 2,
    name: "deferred children",
    statements: [
        """
        CREATE TABLE children (
            id BIGINT PRIMARY KEY,
            parent BIGINT NOT NULL REFERENCES items (id) DEFERRABLE INITIALLY DEFERRED
        )
        """
    ]
)

/// A fresh SQLite database whose batches are bounded by `maxTransactions` alone (the delay is long), so that which
/// transactions share a COMMIT depends only on who is queued.
private func withGroupedDatabase(
    maxTransactions: Int,
    acquireTimeout: Duration = .seconds(60),
    _ body: (FoyerDatabase) async throws -> Void
) async throws {
    try await withTestDatabase(.sqlite) { db in
        let grouped = try await reopen(db) {
            $0.limits.sqliteGroupCommitMaxTransactions = maxTransactions
            $0.limits.sqliteGroupCommitMaxDelay = .seconds(60)
            $0.limits.acquireTimeout = acquireTimeout
        }
        do {
            try await body(grouped)
        } catch {
            try? await grouped.close()
            throw error
        }
        try await grouped.close()
    }
}

/// Holds the writer in a transaction (inserting item 0) while `queue` starts transactions, until `count` of them
/// wait for it, then lets go. The holder is the first transaction of the first batch. Returns how the holder's
/// transaction ended and what `queue` returned.
private func whileWriterHeld<T: Sendable>(
    _ db: FoyerDatabase,
    until count: Int,
    _ queue: @escaping @Sendable (FoyerDatabase) async -> T
) async throws -> (holder: Result<Void, any Error>, queued: T) {
    let (held, signal) = AsyncStream<Void>.makeStream()
    let holder = Task {
        await capturing {
            try await db.transaction { sql in
                try await insertItem(sql, id: 0, label: "holder")
                signal.yield()
                let deadline = ContinuousClock.now + .seconds(30)
                while (db.groupCommitStatistics?.waiting ?? 0) < count, ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(2))
                }
            }
        }
    }
    var iterator = held.makeAsyncIterator()
    await iterator.next()
    let result = await queue(db)
    let holderOutcome = await holder.value
    #expect(db.groupCommitStatistics?.waiting == 0)
    return (holderOutcome, result)
}
