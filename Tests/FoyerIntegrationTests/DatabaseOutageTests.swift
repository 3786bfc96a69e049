import Foundation
import FoyerClient
import FoyerStackProcesses
import FoyerStorage
import FoyerTestSupport
import SQLKit
import Synchronization
import Testing

// Issue 18, part 4: the database goes away (PostgreSQL stopped at once under load) or runs out of space (SQLite on a
// full disk). Services answer `unavailable` (not processed, safe to send again), keep running, recover by
// themselves once the database is back, and lose nothing they acknowledged.

@Suite("Database outages: PostgreSQL stopped under load, SQLite on a full disk", .serialized)
struct DatabaseOutageTests {
    /// Concurrent workers of the PostgreSQL load.
    static let workers = 3

    @Test("PostgreSQL stopped at once under load: unavailable, no crash, recovery without restart, nothing lost")
    func postgresStoppedUnderLoad() async throws {
        let server = try await ThrowawayPostgres.start()
        do {
            // withRunningStack stops the stack with SIGTERM: every service must stop by itself after the outage
            // (a statement on a connection the outage closed once hung its request and the shutdown).
            try await Self.outageUnderLoad(server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    private static func outageUnderLoad(_ server: ThrowawayPostgres) async throws {
        var options = RunningStackOptions(engine: .postgres)
        options.postgresURL = server.url
        options.files = ["plans.json": unlimitedPlans]
        options.prepare = { directory in
            [.guestQuota: ["FOYER_PLANS_FILE": directory.appendingPathComponent("plans.json").path]]
        }
        try await withRunningStack(options) { stack in
            let ledger = OutageLedger()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<Self.workers {
                    group.addTask { try await Self.load(stack, worker: worker, ledger: ledger) }
                }
                do {
                    try await Self.outage(stack, server: server, ledger: ledger)
                } catch {
                    ledger.stop()
                    throw error
                }
                ledger.stop()
                try await group.waitForAll()
            }
            let answers = ledger.answers
            #expect((answers.successes[.before] ?? 0) > 0)
            // During the outage: successes (calls that were done before it began) and `unavailable`; `internal` only
            // for a call whose COMMIT was in flight when the server went (its outcome is unknown), which the service
            // logs as such.
            let outageFailures = answers.failures[.outage] ?? [:]
            #expect(Set(outageFailures.keys).isSubset(of: ["unavailable", "internal"]), "\(answers.failures)")
            #expect((outageFailures["unavailable"] ?? 0) > 0, "\(answers.failures)")
            #expect((outageFailures["internal"] ?? 0) <= Self.commitsInFlightLost(stack), "\(answers.failures)")
            #expect((answers.failures[.before] ?? [:]).isEmpty, "\(answers.failures)")
            #expect(answers.acknowledged.values.map(\.count).reduce(0, +) > 0)
            // cleanup reads and writes its database too: a sweep through every service succeeds.
            _ = try await stack.sweep()
            for service in StackService.allCases { #expect(stack.processes.isRunning(service), "\(service)") }
            // And the databases agree with each other (docs/INVARIANTS.md): no refused put left a document uncounted.
            try await expectInvariants(stack)
        }
    }

    /// How many calls the services logged as failed with their COMMIT in flight (outcome unknown).
    private static func commitsInFlightLost(_ stack: RunningStack) -> Int {
        StackService.allCases.reduce(0) { count, service in
            let log =
                (try? String(contentsOf: stack.processes.configuration.logFile(of: service), encoding: .utf8)) ?? ""
            return count + log.components(separatedBy: "while COMMIT was in flight").count - 1
        }
    }

    /// Before, during and after the outage, each step waiting for the load's answers (bounded waits).
    private static func outage(_ stack: RunningStack, server: ThrowawayPostgres, ledger: OutageLedger) async throws {
        try await within(.seconds(120), "answers before the outage") {
            await ledger.wait { ($0.successes[.before] ?? 0) >= 10 * workers }
        }
        ledger.enter(.outage)
        try await server.pause()
        // Every worker sees the outage on each of its operations (a failure resets its streaks).
        try await within(.seconds(60), "failures during the outage") {
            await ledger.wait { ($0.failures[.outage]?.values.reduce(0, +) ?? 0) >= 6 * workers }
        }
        for service in StackService.allCases {
            #expect(stack.processes.isRunning(service), "\(service) stopped during the outage")
        }
        try await server.resume()
        ledger.enter(.after)
        // Recovery: every worker's every operation (guest sign-in, put, get) succeeds again, twice in a row.
        try await within(.seconds(60), "recovery after the outage") {
            await ledger.wait { answers in
                (0..<workers).allSatisfy { worker in
                    ["guestSignIn", "put", "get"].allSatisfy { (answers.streaks[worker]?[$0] ?? 0) >= 2 }
                }
            }
        }
    }

    /// One worker: its own guest (signed in before the outage), then puts of unique documents, reads of what it
    /// wrote, and guest sign-ins of throwaway clients, in turn, until the ledger stops.
    private static func load(_ stack: RunningStack, worker: Int, ledger: OutageLedger) async throws {
        try await stack.withClient { client in
            _ = try await client.signInAsGuest()
            var written: [String: String] = [:]
            var step = 0
            while !ledger.stopped {
                step += 1
                let operation = ["put", "get", "guestSignIn"][step % 3]
                do {
                    switch operation {
                    case "put":
                        let key = "w\(worker)-\(step)"
                        let value = "worker \(worker) step \(step) \(UUID().uuidString)"
                        try await client.put("outage", key, value)
                        written[key] = value
                        ledger.succeeded(worker: worker, operation: operation, acknowledging: (key, value))
                    case "get":
                        if let (key, value) = written.randomElement() {
                            let document = try await client.get("outage", key)
                            #expect(document?.text == value, "\(key)")
                        } else {
                            _ = try await client.get("outage", "none")
                        }
                        ledger.succeeded(worker: worker, operation: operation)
                    default:
                        try await stack.withClient { probe in _ = try await probe.signInAsGuest() }
                        ledger.succeeded(worker: worker, operation: operation)
                    }
                } catch {
                    ledger.failed(worker: worker, error)
                }
            }
            // Once the database is back: every acknowledged put is there with its content.
            for (key, value) in written {
                #expect(try await client.get("outage", key)?.text == value, "\(key)")
            }
        }
    }

    @Test(
        "SQLite on a full disk: puts unavailable, reads work, puts succeed again once there is space, nothing lost",
        .enabled(if: mayMount, "mounting a size-limited tmpfs needs root")
    )
    func sqliteDiskFull() async throws {
        let disk = try await SizeLimitedDirectory.mount(kibibytes: 1024)
        do {
            try await Self.fillDisk(disk)
        } catch {
            await disk.unmount()
            throw error
        }
        await disk.unmount()
    }

    /// Most puts tried before the disk must be full (1 MiB with 16 KiB documents fills in about 60).
    static let putsUntilFullMax = 500

    private static func fillDisk(_ disk: SizeLimitedDirectory) async throws {
        let file = "\(disk.path)/user-data.sqlite"
        var options = RunningStackOptions()
        options.files = ["plans.json": unlimitedPlans]
        options.environment = [.userData: ["FOYER_DATABASE": "sqlite:\(file)"]]
        options.prepare = { directory in
            [.guestQuota: ["FOYER_PLANS_FILE": directory.appendingPathComponent("plans.json").path]]
        }
        try await withRunningStack(options) { stack in
            try await stack.withClient { client in
                let guest = try await client.signInAsGuest()
                var written: [String: String] = [:]
                var refusal: FoyerError?
                for step in 0..<putsUntilFullMax {
                    let value = String(repeating: "\(step % 10)", count: 16 * 1024) + UUID().uuidString
                    do {
                        try await client.put("disk", "d\(step)", value)
                        written["d\(step)"] = value
                    } catch let error as FoyerError {
                        refusal = error
                        break
                    }
                }
                // The full disk is answered `unavailable` (not processed), not `internal`, and stays so.
                #expect(refusal == .unavailable, "\(String(describing: refusal))")
                #expect(!written.isEmpty)
                let again = await foyerFailure {
                    try await client.put("disk", "again", String(repeating: "x", count: 16 * 1024))
                }
                #expect(again == .unavailable)
                // Reads still work, and every service still runs.
                let (someKey, someValue) = try #require(written.first)
                #expect(try await client.get("disk", someKey)?.text == someValue)
                for service in StackService.allCases { #expect(stack.processes.isRunning(service), "\(service)") }

                // Space again: puts succeed without a restart.
                try await disk.resize(kibibytes: 64 * 1024)
                let value = String(repeating: "y", count: 16 * 1024)
                try await client.put("disk", "after", value)
                written["after"] = value
                for (key, value) in written { #expect(try await client.get("disk", key)?.text == value, "\(key)") }

                // Nothing corrupt, and the quota counts what is stored (refused puts gave their charge back).
                var configuration = try DatabaseConfiguration.parse(
                    "sqlite:\(file)",
                    dataDirectory: "",
                    defaultFileName: ""
                )
                configuration.limits = testDatabaseLimits()
                let database = try await FoyerDatabase.open(configuration, logger: testDatabaseLogger)
                do {
                    let check = try await database.withConnection { sql in
                        try await sql.raw("PRAGMA integrity_check").all().map {
                            try $0.decode(column: "integrity_check", as: String.self)
                        }
                    }
                    #expect(check == ["ok"])
                } catch {
                    try? await database.close()
                    throw error
                }
                try await database.close()
                #expect(try await stack.databases.counter("documents", of: guest.uid) == written.count)
            }
        }
    }
}
