import Foundation
import FoyerAPI
import FoyerBenchKit
import FoyerClient
import FoyerIdentity
import FoyerRPC
import FoyerStackProcesses
import FoyerStorage
import Logging
import NIOCore
import Synchronization

/// The end-to-end rows: the five release executables started as processes on loopback, each on its own SQLite file
/// in a temporary directory or in its own fresh schema of one PostgreSQL database, driven over TCP the way apps
/// (through the gateway) and services (straight, with the cluster secret) drive them. Peak memory is each process's
/// high-water mark at the end.
struct StackBenchmark {
    let sizes: StackSizes
    /// `.sqlite`, or `.postgres` with a schema prefix no earlier run used (the schemas are dropped at the end).
    let database: StackDatabase
    /// `--sqlite-group-commit` for every service (nil: the services' default).
    var sqliteGroupCommit: Int? = nil
    /// Only the delete-everything and cleanup rows (`--deletion-only`).
    var deletionOnly = false
    let logger: Logger

    func run() async throws -> StackReport {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("foyer-bench-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            let report = try await measure(directory: directory)
            try await PostgresServer.dropSchemas(of: database, logger: logger)
            return report
        } catch {
            try? await PostgresServer.dropSchemas(of: database, logger: logger)
            throw error
        }
    }

    private func measure(directory: URL) async throws -> StackReport {
        let secret = ClusterSecret.generate()
        let stack = try await StackProcesses.start(try configuration(directory: directory, secret: secret))
        do {
            var report = try await StackRun(
                stack: stack,
                dataDirectory: directory,
                secret: secret,
                sizes: sizes,
                deletionOnly: deletionOnly,
                logger: logger
            ).measure()
            try await stack.terminate()
            // With the services stopped, PostgreSQL alone on their tables: the anchor of their rows.
            report.anchors = try PgbenchAnchor.measure(
                database: database,
                clients: sizes.concurrency,
                transactions: sizes.serviceCalls
            )
            return report
        } catch {
            for service in StackService.allCases {
                FileHandle.standardError.write(Data((stack.logTail(of: service, lines: 15) + "\n").utf8))
            }
            await stack.killAll()
            throw error
        }
    }

    /// The stack as deployed, but for: guests may hold as many documents as the merge row needs, the gateway lets
    /// the bench spread sign-up sources (`--load-test-sources`), per-source limits are lifted (sign-up admission's
    /// too: the HTTP edge's sign-ins cannot name a source), the gateway serves its HTTP edge beside the binary one,
    /// and cleanup's TTL is one second with sweeps only when the bench asks (so it can time them), large pages and
    /// 16 deletions at once.
    private func configuration(directory: URL, secret: ClusterSecret) throws -> StackConfiguration {
        var configuration = StackConfiguration(
            binDirectory: try StackProcesses.locateExecutables(),
            dataDirectory: directory,
            database: database
        )
        let plans = directory.appendingPathComponent("plans.json")
        try Data(
            """
            {"guest": {"counters": {"documents": 100000, "bytes": 1073741824}, "features": {"import": false}},
             "member": {"counters": {"documents": 100000, "bytes": 1073741824}, "features": {"import": true}}}
            """.utf8
        ).write(to: plans)
        configuration.sharedEnvironment = ["FOYER_CLUSTER_SECRET": secret.text, "FOYER_LOG_LEVEL": "warning"]
        if let sqliteGroupCommit {
            configuration.sharedEnvironment["FOYER_SQLITE_GROUP_COMMIT"] = String(sqliteGroupCommit)
        }
        configuration.environment[.guestQuota] = [
            "FOYER_PLANS_FILE": plans.path,
            "FOYER_SIGNUPS_PER_HOUR": "100000000",
        ]
        configuration.gatewayServesHTTP = true
        // For the calls-per-operation rows (the gateway's own counters); deployments run with metrics too.
        configuration.servesMetrics = true
        configuration.environment[.cleanup] = [
            "FOYER_CLEANUP_TTL_SECONDS": "1",
            "FOYER_CLEANUP_ALLOW_SHORT_TTL": "1",
            "FOYER_CLEANUP_INTERVAL_SECONDS": "86400",
            "FOYER_CLEANUP_BATCH_SIZE": "1000",
            "FOYER_CLEANUP_PAGES_PER_SWEEP": "200",
            "FOYER_CLEANUP_DELETION_CONCURRENCY": "16",
        ]
        configuration.arguments[.gateway] = ["--load-test-sources"]
        // Every row's clients come from 127.0.0.1: per-source limits would count the whole bench as one client.
        configuration.environment[.gateway] = [
            "FOYER_REFRESH_PER_MINUTE": "100000000",
            "FOYER_SIGN_IN_PER_MINUTE": "100000000",
        ]
        configuration.environment[.identity] = [
            "FOYER_PASSWORD_HASHES_PER_SOURCE_PER_MINUTE": "100000000",
            "FOYER_PASSWORD_HASH_BURST_PER_SOURCE": "100000000",
        ]
        return configuration
    }
}

/// How much each end-to-end row does; `--full` for the sizes the report quotes.
struct StackSizes: Codable, Sendable {
    var signIns: Int
    var serviceCalls: Int
    var mergeDocuments: Int
    var deleteDocuments: Int
    var cleanupGuests: [Int]
    var concurrency: Int

    /// Tiny sizes that only check every row runs (`--smoke`).
    static let smoke = StackSizes(
        signIns: 100,
        serviceCalls: 200,
        mergeDocuments: 100,
        deleteDocuments: 500,
        cleanupGuests: [100, 300],
        concurrency: 8
    )

    static func make(full: Bool) -> StackSizes {
        full
            ? StackSizes(
                signIns: 10_000,
                serviceCalls: 20_000,
                mergeDocuments: 1000,
                deleteDocuments: 10_000,
                cleanupGuests: [1000, 10_000, 100_000],
                concurrency: 32
            )
            : StackSizes(
                signIns: 2000,
                serviceCalls: 5000,
                mergeDocuments: 1000,
                deleteDocuments: 10_000,
                cleanupGuests: [1000, 10_000],
                concurrency: 32
            )
    }
}

/// One run against a started stack.
final class StackRun: Sendable {
    let stack: StackProcesses
    let dataDirectory: URL
    let secret: ClusterSecret
    let sizes: StackSizes
    /// Only the delete-everything and cleanup rows.
    let deletionOnly: Bool
    let logger: Logger
    /// Sign-up sources handed out so far: each sign-in names a new one, so no per-source limit is met.
    let sources = Atomic<Int>(0)

    init(
        stack: StackProcesses,
        dataDirectory: URL,
        secret: ClusterSecret,
        sizes: StackSizes,
        deletionOnly: Bool,
        logger: Logger
    ) {
        self.stack = stack
        self.dataDirectory = dataDirectory
        self.secret = secret
        self.sizes = sizes
        self.deletionOnly = deletionOnly
        self.logger = logger
    }

    func port(_ service: StackService) -> Int { stack.port(of: service) }

    /// The engine the stack's services store their data in.
    var engine: BenchEngine {
        if case .postgres = stack.configuration.database { return .postgres }
        return .sqlite
    }

    func measure() async throws -> StackReport {
        var report = StackReport(engine: engine, sizes: sizes)
        if !deletionOnly {
            progress("guest sign-ins")
            report.throughput += try await signIns()
            progress("guest sign-ins and document puts through FoyerClient, binary and HTTP edges")
            report.throughput += try await edgeComparison()
            progress("quota consumes and document puts")
            report.throughput += try await serviceCalls()
            progress("calls per operation")
            report.calls += try await dataCallCounts()
            progress("link-or-merge of \(sizes.mergeDocuments) documents")
            report.operations.append(try await linkOrMerge(calls: &report.calls))
        }
        progress("delete-everything of \(sizes.deleteDocuments) documents")
        report.operations.append(try await deleteEverything(calls: &report.calls))
        for guests in sizes.cleanupGuests {
            progress("cleanup of \(guests) expired guests")
            report.cleanup.append(try await cleanup(guests: guests))
        }
        report.peakMemory = StackService.allCases.map { service in
            MemoryRow(service: service.rawValue, peakMiB: Double(stack.peakResidentBytes(of: service) ?? 0) / 1_048_576)
        }
        return report
    }

    // MARK: Sign-ins and single calls

    /// Guest sign-ins through the gateway (token check, sign-up admission, identity, guest-quota), beside the same
    /// sign-ins straight at identity.
    private func signIns() async throws -> [ThroughputRow] {
        let gateway = rpcClient(service: "gateway", port: port(.gateway), secret: nil)
        defer { Task { await gateway.shutdown() } }
        let viaGateway = try await Drive.run(count: sizes.signIns, concurrency: sizes.concurrency) { _ in
            _ = try await self.guestSignIn(gateway)
        }
        let identity = rpcClient(service: "identity", port: port(.identity), secret: secret)
        defer { Task { await identity.shutdown() } }
        let direct = try await Drive.run(count: sizes.signIns, concurrency: sizes.concurrency) { _ in
            _ = try await identity.call(
                IdentityMethods.createGuest,
                CreateGuestRequest(idempotencyKey: OperationID.make())
            )
        }
        return [
            ThroughputRow(name: "guest sign-in", path: "gateway", concurrency: sizes.concurrency, drive: viaGateway),
            ThroughputRow(name: "guest sign-in", path: "identity", concurrency: sizes.concurrency, drive: direct),
        ]
    }

    /// guest-quota consumes and user-data puts straight at the services (`GuestQuotaLoad`, `UserDataLoad`).
    private func serviceCalls() async throws -> [ThroughputRow] {
        let consumes = try await GuestQuotaLoad.consumes(
            port: port(.guestQuota),
            clusterSecret: secret,
            operations: sizes.serviceCalls,
            concurrency: sizes.concurrency,
            logger: logger
        )
        let puts = try await UserDataLoad.puts(
            port: port(.userData),
            clusterSecret: secret,
            operations: sizes.serviceCalls,
            concurrency: sizes.concurrency,
            logger: logger
        )
        return [
            ThroughputRow(
                name: "quota consume",
                path: "guest-quota",
                concurrency: sizes.concurrency,
                succeeded: consumes.succeeded,
                failed: consumes.failed,
                elapsed: consumes.elapsed
            ),
            ThroughputRow(
                name: "document put (256 B)",
                path: "user-data",
                concurrency: sizes.concurrency,
                succeeded: puts.succeeded,
                failed: puts.failed,
                elapsed: puts.elapsed
            ),
        ]
    }

    // MARK: Multi-service operations

    /// A guest with `mergeDocuments` documents links the email of an existing account with `onConflict: merge`:
    /// password check, begin-merge, the documents moved, counters added, the guest deleted. Beside it, user-data's
    /// merge of as many documents alone.
    private func linkOrMerge(calls: inout [CallCountRow]) async throws -> OperationRow {
        let email = "bench-\(UUID().uuidString.prefix(8).lowercased())@example.com"
        let password = "correct horse battery staple \(UUID().uuidString)"
        let account = try await signedInClient()
        defer { Task { await account.shutdown() } }
        try await account.link(email: email, password: password)

        let guest = try await signedInClient()
        defer { Task { await guest.shutdown() } }
        try await fill(guest, documents: sizes.mergeDocuments)
        let clock = ContinuousClock()
        var elapsed = Duration.zero
        var linked: LinkResult?
        let made = try await counted {
            let start = clock.now
            linked = try await guest.link(email: email, password: password, onConflict: .merge)
            elapsed = clock.now - start
        }
        calls.append(CallCountRow(name: "link-or-merge (merge)", byMethod: made))
        guard let result = linked, result.outcome == .merged, result.mergeReport?.moved == UInt64(sizes.mergeDocuments)
        else {
            throw BenchFailure(
                "link-or-merge: expected \(sizes.mergeDocuments) documents merged, got \(String(describing: linked))"
            )
        }
        let alone = try await UserDataLoad.merge(
            port: port(.userData),
            clusterSecret: secret,
            guestDocuments: sizes.mergeDocuments,
            logger: logger
        )
        return OperationRow(
            name: "link-or-merge (merge)",
            documents: sizes.mergeDocuments,
            milliseconds: elapsed.milliseconds,
            comparison: "user-data merge alone",
            comparisonMilliseconds: alone.elapsed.milliseconds
        )
    }

    /// A member with `deleteDocuments` documents deletes the account: sessions revoked, the record kept, the
    /// documents and counters deleted, the user removed.
    private func deleteEverything(calls: inout [CallCountRow]) async throws -> OperationRow {
        let member = try await signedInClient()
        defer { Task { await member.shutdown() } }
        try await member.link(
            email: "bench-\(UUID().uuidString.prefix(8).lowercased())@example.com",
            password: "correct horse battery staple \(UUID().uuidString)"
        )
        try await fill(member, documents: sizes.deleteDocuments)
        let clock = ContinuousClock()
        var elapsed = Duration.zero
        var deleted: UInt64 = 0
        let made = try await counted {
            let start = clock.now
            deleted = try await member.deleteAccount()
            elapsed = clock.now - start
        }
        calls.append(CallCountRow(name: "delete-everything (member)", byMethod: made))
        guard deleted == UInt64(sizes.deleteDocuments) else {
            throw BenchFailure("delete-everything: expected \(sizes.deleteDocuments) documents deleted, got \(deleted)")
        }
        return OperationRow(
            name: "delete-everything",
            documents: sizes.deleteDocuments,
            milliseconds: elapsed.milliseconds
        )
    }

    /// Seeds `guests` idle guests (as a gateway sign-in leaves them, last active before the one-second TTL), then
    /// times cleanup's sweeps until all are deleted with everything they own in every service.
    private func cleanup(guests: Int) async throws -> CleanupRow {
        let cleanup = FoyerCleanupClient(
            host: "127.0.0.1",
            port: port(.cleanup),
            secret: secret,
            callTimeout: .seconds(900),
            logger: logger
        )
        defer { Task { await cleanup.shutdown() } }
        // Guests of earlier rows expire too: clear them first, untimed.
        try await Task.sleep(for: .milliseconds(1100))
        while try await cleanup.sweep(dryRun: false).expiredGuests > 0 {}

        let clock = ContinuousClock()
        let seeding = clock.now
        try await seedGuests(guests)
        let seedSeconds = (clock.now - seeding).seconds

        let start = clock.now
        var deleted: UInt64 = 0
        var sweeps = 0
        while deleted < UInt64(guests) {
            let report = try await cleanup.sweep(dryRun: false)
            sweeps += 1
            deleted += report.expiredGuests
            guard report.errors == 0, report.expiredGuests > 0 || deleted >= UInt64(guests) else {
                throw BenchFailure("cleanup stopped at \(deleted) of \(guests) guests: \(report.lastError)")
            }
        }
        let seconds = (clock.now - start).seconds
        return CleanupRow(guests: guests, seedSeconds: seedSeconds, sweepSeconds: seconds, sweeps: sweeps)
    }

    /// Writes `count` guests straight into identity's and guest-quota's databases, beside the running services:
    /// signing 100,000 guests in through the gateway would take longer than the whole report may, and it is the
    /// deletion that the row measures (guest sign-ins have their own row).
    private func seedGuests(_ count: Int) async throws {
        func open(_ service: StackService) async throws -> FoyerDatabase {
            switch stack.configuration.database {
            case .sqlite:
                let path = stack.configuration.sqliteFile(of: service).path
                return try await FoyerDatabase.open(DatabaseConfiguration(engine: .sqlite(path: path)), logger: logger)
            case .postgres:
                return try await FoyerDatabase.open(
                    try PostgresServer.configuration(of: service, in: stack.configuration.database),
                    logger: logger
                )
            }
        }
        let identity = try await open(.identity)
        let uids: [String]
        do {
            uids = try await IdentityBenchmark.seedGuests(
                into: identity,
                count: count,
                lastActivity: Date().addingTimeInterval(-2)
            )
            try await identity.close()
        } catch {
            try? await identity.close()
            throw error
        }
        let quota = try await open(.guestQuota)
        do {
            try await GuestQuotaLoad.seedGuestAccounts(into: quota, uids: uids)
            try await quota.close()
        } catch {
            try? await quota.close()
            throw error
        }
    }

    // MARK: Helpers

    private func progress(_ what: String) {
        FileHandle.standardError.write(Data("  measuring \(what)...\n".utf8))
    }

    private func guestSignIn(_ gateway: RPCClient) async throws -> SessionTokens {
        let index = sources.add(1, ordering: .relaxed).newValue
        // 10.0.0.0/8: one address per sign-in, so each source's bucket sees one sign-up.
        let source = "10.\((index >> 16) & 0xFF).\((index >> 8) & 0xFF).\(index & 0xFF)"
        return try await gateway.call(
            GatewayMethods.guestSignIn,
            GuestSignInRequest(idempotencyKey: OperationID.make(), loadTestSource: source)
        )
    }

    /// The calls the gateway made to the services while `operation` ran.
    private func counted(_ operation: () async throws -> Void) async throws -> [String: Double] {
        try await MetricsScrape.clientCalls(port: stack.metricsPort(of: .gateway), around: operation)
    }

    /// The gateway's calls for a guest sign-in, a put of a new document and of a rewrite (after a first put, so
    /// the session check and the activity report are behind it, as in steady use), and a get.
    private func dataCallCounts() async throws -> [CallCountRow] {
        let gateway = rpcClient(service: "gateway", port: port(.gateway), secret: nil)
        defer { Task { await gateway.shutdown() } }
        var rows = [
            CallCountRow(name: "guest sign-in", byMethod: try await counted { _ = try await guestSignIn(gateway) })
        ]
        let client = try await signedInClient()
        defer { Task { await client.shutdown() } }
        try await client.put("notes", "warm-up", "the session check and activity report happen here")
        rows.append(
            CallCountRow(
                name: "document put (new)",
                byMethod: try await counted {
                    try await client.put("notes", "new", "a new document")
                }
            )
        )
        rows.append(
            CallCountRow(
                name: "document put (rewrite)",
                byMethod: try await counted {
                    try await client.put("notes", "new", "the same document, rewritten")
                }
            )
        )
        rows.append(
            CallCountRow(
                name: "document get",
                byMethod: try await counted {
                    _ = try await client.get("notes", "new")
                }
            )
        )
        return rows
    }

    /// A `FoyerClient` of the gateway, signed in as a new guest.
    private func signedInClient() async throws -> FoyerClient {
        let gateway = rpcClient(service: "gateway", port: port(.gateway), secret: nil)
        let session = try await guestSignIn(gateway)
        await gateway.shutdown()
        var configuration = FoyerClientConfiguration(host: "127.0.0.1", port: port(.gateway))
        configuration.peerName = "foyer-bench"
        return FoyerClient(configuration: configuration, session: session, logger: logger)
    }

    /// Writes `documents` 256-byte documents through the gateway, 32 at once.
    private func fill(_ client: FoyerClient, documents: Int) async throws {
        let value = ByteBuffer(repeating: 0x61, count: 256)
        let fill = try await Drive.run(count: documents, concurrency: 32) { index in
            try await client.put("bench", "doc-\(index)", value: value)
        }
        guard fill.failures.isEmpty else { throw BenchFailure("writing documents failed: \(fill.failures)") }
    }

    private func rpcClient(service: String, port: Int, secret: ClusterSecret?) -> RPCClient {
        var configuration = RPCClientConfiguration(
            host: "127.0.0.1",
            port: port,
            serviceName: service,
            peerName: "foyer-bench",
            clusterSecret: secret
        )
        configuration.connectionsMax = 2
        return RPCClient(configuration: configuration, logger: logger)
    }
}
