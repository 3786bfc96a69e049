import FoyerAPI
import FoyerGuestQuota
import FoyerRPC
import FoyerStorage
import FoyerTestSupport
import FoyerWire
import Logging
import SQLKit
import ServiceLifecycle
import Testing

@Suite("denials counted for the cluster: tallied in memory, flushed to guest_quota_denials, summed by stats")
struct DenialCountingTests {
    @Test(
        "every refusal is counted by kind; stats include unflushed tallies, and a flush moves them without counting twice",
        arguments: TestEngine.allCases
    )
    func countedAndFlushed(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { database in
            let clock = TestClock()
            let configure: (inout GuestQuotaConfiguration) -> Void = {
                $0.signupBurstPerSource = 1
                $0.liveGuestsMax = 1
            }
            try await withDenialCounting(on: database, clock: clock, configure: configure) { quota, flushLoop in
                // Given one refusal at each place guest-quota refuses: a source's bucket, the guest cap at
                // admission and at opening, and a consume over the counter's limit
                _ = try await quota.admit("203.0.113.7")
                await expectStatus(GuestQuotaStatus.signupRateLimited) { try await quota.admit("203.0.113.7") }
                let guest = try await quota.open(testUID())
                await expectStatus(GuestQuotaStatus.guestCapReached) { try await quota.open(testUID()) }
                await expectStatus(GuestQuotaStatus.guestCapReached) { try await quota.admit("203.0.113.8") }
                await expectStatus(GuestQuotaStatus.quotaExceeded) { try await quota.consume(guest, amount: 21) }

                // Then stats count them before any flush, and nothing was written on the denials' path
                let expected = [DenialCount(kind: "signup", count: 3), DenialCount(kind: "documents", count: 1)]
                var stats = try await quota.stats()
                #expect(stats.denialsLastHour == 4)
                #expect(stats.denialsByKind == expected)
                #expect(try await storedDenials(database) == DenialRows(rows: 0, total: 0))

                // When the tallies are flushed, the table holds them and stats count them once
                try await flushLoop.flush()
                #expect(try await storedDenials(database) == DenialRows(rows: 2, total: 4))
                stats = try await quota.stats()
                #expect(stats.denialsLastHour == 4)
                #expect(stats.denialsByKind == expected)

                // And a later denial of the same minute is added to its row
                await expectStatus(GuestQuotaStatus.quotaExceeded) { try await quota.consume(guest, amount: 21) }
                #expect(try await quota.stats().denialsLastHour == 5)
                try await flushLoop.flush()
                #expect(try await storedDenials(database) == DenialRows(rows: 2, total: 5))
                #expect(try await quota.stats().denialsByKind.first { $0.kind == "documents" }?.count == 2)
            }
        }
    }

    @Test("two instances on one PostgreSQL database: each one's stats count the other's flushed denials")
    func instancesAddUp() async throws {
        try await withTestDatabase(.postgres) { database in
            let clock = TestClock()
            try await withDenialCounting(on: database, clock: clock) { first, firstLoop in
                try await withDenialCounting(on: database, clock: clock) { second, secondLoop in
                    let firstGuest = try await first.open(testUID())
                    let secondGuest = try await second.open(testUID())
                    for _ in 0..<2 { _ = await denied(first, firstGuest) }
                    for _ in 0..<3 { _ = await denied(second, secondGuest) }
                    // Unflushed, each counts only its own.
                    #expect(try await first.stats().denialsLastHour == 2)
                    #expect(try await second.stats().denialsLastHour == 3)

                    try await firstLoop.flush()
                    try await secondLoop.flush()
                    _ = await denied(second, secondGuest)  // not flushed: only the second counts it

                    #expect(try await first.stats().denialsLastHour == 5)
                    #expect(try await first.stats().denialsByKind == [DenialCount(kind: "documents", count: 5)])
                    #expect(try await second.stats().denialsLastHour == 6)
                    #expect(try await storedDenials(database) == DenialRows(rows: 1, total: 5))
                }
            }
        }
    }

    @Test(
        "stats count the minutes that started in the last 60 minutes, flushed or not",
        arguments: TestEngine.allCases
    )
    func windowExcludesOldMinutes(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { database in
            // The clock starts 20 s into a minute.
            let clock = TestClock()
            try await withDenialCounting(on: database, clock: clock) { quota, flushLoop in
                let guest = try await quota.open(testUID())
                _ = await denied(quota, guest)
                try await flushLoop.flush()
                _ = await denied(quota, guest)  // same minute, held in memory

                // 59 min 55 s after the start of the first denials' minute: still inside the window.
                clock.advance(by: 3600 - 25)
                _ = await denied(quota, guest)
                #expect(try await quota.stats().denialsLastHour == 3)

                clock.advance(by: 10)  // 60 min 5 s: that minute is out, flushed or not
                #expect(try await quota.stats().denialsLastHour == 1)
                #expect(try await quota.stats().denialsByKind == [DenialCount(kind: "documents", count: 1)])
                try await flushLoop.flush()
                #expect(try await quota.stats().denialsLastHour == 1)
                #expect(try await storedDenials(database) == DenialRows(rows: 2, total: 3))
            }
        }
    }

    @Test("prune removes the rows of minutes older than 24 hours, and no others", arguments: TestEngine.allCases)
    func pruneRemovesOldRows(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { database in
            let clock = TestClock()
            try await withDenialCounting(on: database, clock: clock) { quota, flushLoop in
                let guest = try await quota.open(testUID())
                _ = await denied(quota, guest)
                clock.advance(by: 3600)
                _ = await denied(quota, guest)
                try await flushLoop.flush()
                #expect(try await storedDenials(database) == DenialRows(rows: 2, total: 2))

                // The first minute started 20 s before the clock's start.
                clock.advance(by: 86_400 - 3600 - 30)
                #expect(try await quota.prune() == 0)
                clock.advance(by: 20)
                #expect(try await quota.prune() == 1)
                #expect(try await storedDenials(database) == DenialRows(rows: 1, total: 1))
                clock.advance(by: 3600)
                #expect(try await quota.prune() == 1)
                #expect(try await storedDenials(database) == DenialRows(rows: 0, total: 0))
            }
        }
    }

    @Test("a graceful shutdown ends the flush loop with a last flush", arguments: TestEngine.allCases)
    func shutdownFlushes(engine: TestEngine) async throws {
        try await withTestDatabase(engine) { database in
            let clock = TestClock()
            // A round an hour: the only flush within the test is the one at shutdown.
            let configure: (inout GuestQuotaConfiguration) -> Void = { $0.denialFlushInterval = .seconds(3600) }
            try await withDenialCounting(on: database, clock: clock, configure: configure) { quota, flushLoop in
                let group = ServiceGroup(
                    configuration: .init(
                        services: [.init(service: flushLoop)],
                        logger: TestLogging.logger("foyer.test.group")
                    )
                )
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    tasks.addTask { try await group.run() }
                    let guest = try await quota.open(testUID())
                    for _ in 0..<3 { _ = await denied(quota, guest) }
                    #expect(try await storedDenials(database) == DenialRows(rows: 0, total: 0))
                    await group.triggerGracefulShutdown()
                    try await tasks.waitForAll()
                }
                #expect(try await storedDenials(database) == DenialRows(rows: 1, total: 3))
            }
        }
    }

    @Test("the flush interval defaults to 10 s; under a second or over an hour is refused")
    func flushIntervalSetting() throws {
        var configuration = GuestQuotaConfiguration(
            database: try .parse(
                "sqlite:unused.sqlite",
                dataDirectory: "/nonexistent",
                defaultFileName: "unused.sqlite"
            )
        )
        #expect(configuration.denialFlushInterval == .seconds(10))
        try configuration.validate()
        for refused in [Duration.milliseconds(999), .seconds(3601)] {
            configuration.denialFlushInterval = refused
            #expect(throws: GuestQuotaConfigurationError.invalidSetting) { try configuration.validate() }
        }
    }
}

/// A client of one guest-quota instance, with the calls these tests make.
private struct QuotaInstance {
    let client: RPCClient

    func open(_ uid: String) async throws -> String {
        _ = try await client.call(GuestQuotaMethods.openAccount, OpenQuotaAccountRequest(uid: uid, plan: "guest"))
        return uid
    }

    func admit(_ source: String) async throws -> AdmitSignupResponse {
        try await client.call(GuestQuotaMethods.admitSignup, AdmitSignupRequest(source: source))
    }

    func consume(_ uid: String, amount: Int64) async throws -> ConsumeResponse {
        let charge = QuotaCharge(counter: "documents", amount: amount, idempotencyKey: newKey())
        return try await client.call(GuestQuotaMethods.consume, ConsumeRequest(uid: uid, charges: [charge]))
    }

    func stats() async throws -> GuestQuotaStats {
        try await client.call(GuestQuotaMethods.stats, Empty())
    }

    func prune() async throws -> UInt64 {
        try await client.call(GuestQuotaMethods.prune, PruneRequest(limit: 1000)).removed
    }
}

/// A consume of `uid` over the guest plan's 20 documents, which is refused.
private func denied(_ quota: QuotaInstance, _ uid: String) async -> RPCError? {
    await expectStatus(GuestQuotaStatus.quotaExceeded) { try await quota.consume(uid, amount: 21) }
}

/// Runs `body` against guest-quota started in-process on `database` (several instances may share one), with its
/// denial flush loop, which the test drives (the loop itself runs only where a test runs it).
private func withDenialCounting<T: Sendable>(
    on database: FoyerDatabase,
    clock: TestClock,
    configure: (inout GuestQuotaConfiguration) -> Void = { _ in },
    _ body: (QuotaInstance, DenialFlushLoop) async throws -> T
) async throws -> T {
    var configuration = GuestQuotaConfiguration(database: database.configuration)
    configuration.database.limits.postgresPoolSize = 3
    configuration.database.sqliteSynchronous = .normal
    configuration.now = clock.now
    configure(&configuration)
    let (service, flushLoop) = try await GuestQuotaService.makeWithDenialFlush(
        configuration: configuration,
        server: testServerConfiguration(service: "guest-quota"),
        logger: TestLogging.logger("foyer.test.guest-quota")
    )
    return try await withServiceClient(service.server, service: "guest-quota", maxAttempts: 1, close: service.close) {
        client in try await body(QuotaInstance(client: client), flushLoop)
    }
}

/// The rows of `guest_quota_denials` and the sum of their counts.
private struct DenialRows: Equatable {
    let rows: Int64
    let total: Int64
}

private func storedDenials(_ database: FoyerDatabase) async throws -> DenialRows {
    try await database.withConnection { sql in
        let row = try await sql.raw(
            """
            SELECT CAST(COUNT(*) AS BIGINT) AS row_count, CAST(COALESCE(SUM(count), 0) AS BIGINT) AS total
            FROM guest_quota_denials
            """
        ).first()
        return DenialRows(
            rows: try row?.decode(column: "row_count", as: Int64.self) ?? -1,
            total: try row?.decode(column: "total", as: Int64.self) ?? -1
        )
    }
}
