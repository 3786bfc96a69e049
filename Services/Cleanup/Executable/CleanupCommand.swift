import ArgumentParser
import FoyerCleanup
import FoyerRPC
import FoyerServiceKit
import FoyerStorage

/// `cleanup`: deletes idle guests, finishes interrupted merges and deletions, keeps deletion records.
@main
struct CleanupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cleanup",
        abstract: "Foyer's clean-up: deletes guests idle past the TTL, finishes interrupted merges and deletions.",
        discussion: """
            Several replicas may run against one PostgreSQL database: they share the work and never run the same \
            account at once. Every option can also be set by the environment variable named in its help.
            """
    )

    @OptionGroup var common: ServiceOptions

    @OptionGroup var upstreams: UpstreamAddressOptions
    @OptionGroup(title: "The app's merge and delete hooks") var hooks: AppHookOptions

    @Option(help: "Days of inactivity after which a guest is deleted. (env: FOYER_CLEANUP_TTL_DAYS; default: 30)")
    var ttlDays: Int?
    @Option(
        help:
            "The guest TTL in seconds instead of days, for trials and benchmarks; wins over --ttl-days. (env: FOYER_CLEANUP_TTL_SECONDS)"
    )
    var ttlSeconds: Int?
    @Flag(
        help:
            "Allows a guest TTL under 10 minutes, identity's activity-recording interval, which could delete guests in use: for benchmarks only. (env: FOYER_CLEANUP_ALLOW_SHORT_TTL)"
    )
    var allowShortTtl = false
    @Option(help: "Seconds between sweeps. (env: FOYER_CLEANUP_INTERVAL_SECONDS; default: 60)")
    var intervalSeconds: Int?
    @Option(
        help:
            "Seconds an account may stay merging or deleting before cleanup finishes it. (env: FOYER_CLEANUP_GRACE_SECONDS; default: 900)"
    )
    var graceSeconds: Int?
    @Option(help: "Accounts per page, 1–1000. (env: FOYER_CLEANUP_BATCH_SIZE; default: 100)")
    var batchSize: Int?
    @Option(help: "Pages per sweep and kind of work. (env: FOYER_CLEANUP_PAGES_PER_SWEEP; default: 10)")
    var pagesPerSweep: Int?
    @Option(
        help:
            "Batches each page of expired guests is split into, deleted at once, 1–64. (env: FOYER_CLEANUP_DELETION_CONCURRENCY; default: 8)"
    )
    var deletionConcurrency: Int?
    @Option(
        help:
            "Days deletion records are kept; at least 24 months is the norm. (env: FOYER_CLEANUP_RETENTION_DAYS; default: 731)"
    )
    var retentionDays: Int?
    @Option(
        help:
            "Seconds after which another replica may take over a replica's claim on an account. (env: FOYER_CLEANUP_CLAIM_SECONDS; default: 30; renewed every third of it while the replica works)"
    )
    var claimSeconds: Int?
    @Option(
        help:
            "This replica's name, unique among replicas sharing a database. (env: FOYER_CLEANUP_REPLICA_ID; default: host name and process id)"
    )
    var replicaID: String?

    func run() async throws {
        let startup = try ServiceStartup(service: "cleanup", defaultPort: 7404, options: common)
        if common.checkHealth {
            throw ExitCode(await startup.checkHealth() ? 0 : 1)
        }
        try await startup.prepareDatabase()
        let clients = try upstreams.clients(startup)
        var configuration = CleanupConfiguration(
            database: startup.database,
            identity: clients.identity,
            guestQuota: clients.guestQuota,
            userData: clients.userData
        )
        configuration.now = startup.now
        try apply(to: &configuration, SettingsReader())
        do {
            try configuration.validate()
        } catch let error as CleanupConfigurationError {
            throw ValidationError(error.message)
        }

        let service = try await CleanupService.make(
            configuration: configuration,
            server: startup.serverConfiguration(),
            logger: startup.logger
        )
        try await ServiceRunner.run(
            services: startup.withTelemetry(startup.withCertificateReload(service.services)),
            logger: startup.logger,
            thenClose: service.close
        )
    }

    /// The settings given by flags or environment; the others keep their defaults.
    private func apply(to configuration: inout CleanupConfiguration, _ settings: SettingsReader) throws {
        func seconds(_ flag: Int?, _ name: String, _ variable: String, unit: Int64 = 1) throws -> Duration? {
            try settings.value(flag, .nonNegative(name, variable)).map { .seconds(Int64($0) * unit) }
        }
        func count(_ flag: Int?, _ name: String, _ variable: String) throws -> Int? {
            try settings.value(flag, .nonNegative(name, variable))
        }
        let day: Int64 = 86_400
        if let ttl = try seconds(ttlDays, "--ttl-days", "FOYER_CLEANUP_TTL_DAYS", unit: day) {
            configuration.guestTTL = ttl
        }
        if let ttl = try seconds(ttlSeconds, "--ttl-seconds", "FOYER_CLEANUP_TTL_SECONDS") {
            configuration.guestTTL = ttl
        }
        configuration.appHooks = try hooks.settings()
        configuration.allowsShortGuestTTL = settings.isOn(allowShortTtl, "FOYER_CLEANUP_ALLOW_SHORT_TTL")
        configuration.sweepInterval =
            try seconds(intervalSeconds, "--interval-seconds", "FOYER_CLEANUP_INTERVAL_SECONDS")
            ?? configuration.sweepInterval
        configuration.recoveryGrace =
            try seconds(graceSeconds, "--grace-seconds", "FOYER_CLEANUP_GRACE_SECONDS") ?? configuration.recoveryGrace
        configuration.batchSize =
            try count(batchSize, "--batch-size", "FOYER_CLEANUP_BATCH_SIZE") ?? configuration.batchSize
        configuration.pagesPerSweep =
            try count(pagesPerSweep, "--pages-per-sweep", "FOYER_CLEANUP_PAGES_PER_SWEEP")
            ?? configuration.pagesPerSweep
        configuration.deletionConcurrency =
            try count(deletionConcurrency, "--deletion-concurrency", "FOYER_CLEANUP_DELETION_CONCURRENCY")
            ?? configuration.deletionConcurrency
        configuration.recordRetention =
            try seconds(retentionDays, "--retention-days", "FOYER_CLEANUP_RETENTION_DAYS", unit: day)
            ?? configuration.recordRetention
        configuration.claimLifetime =
            try seconds(claimSeconds, "--claim-seconds", "FOYER_CLEANUP_CLAIM_SECONDS") ?? configuration.claimLifetime
        configuration.replicaID =
            try settings.value(replicaID, .text("--replica-id", "FOYER_CLEANUP_REPLICA_ID")) ?? configuration.replicaID
        if let key = settings.text("FOYER_CLEANUP_PSEUDONYM_KEY") {
            configuration.pseudonymKey = try CleanupConfiguration.pseudonymKey(base64URL: key)
        }
    }
}
