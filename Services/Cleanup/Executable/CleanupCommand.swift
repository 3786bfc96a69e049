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

    @Option(help: "identity's address. (env: FOYER_IDENTITY_ADDRESS; default: 127.0.0.1:7401)")
    var identity: String?
    @Option(help: "guest-quota's address. (env: FOYER_GUEST_QUOTA_ADDRESS; default: 127.0.0.1:7402)")
    var guestQuota: String?
    @Option(help: "user-data's address. (env: FOYER_USER_DATA_ADDRESS; default: 127.0.0.1:7403)")
    var userData: String?

    @Option(help: "Days of inactivity after which a guest is deleted. (env: FOYER_CLEANUP_TTL_DAYS; default: 30)")
    var ttlDays: Int?
    @Option(
        help:
            "The guest TTL in seconds instead of days, for trials and benchmarks; wins over --ttl-days. (env: FOYER_CLEANUP_TTL_SECONDS)"
    )
    var ttlSeconds: Int?
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
            "Seconds after which another replica may take over a replica's claim on an account. (env: FOYER_CLEANUP_CLAIM_SECONDS; default: 300)"
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
        func address(_ flag: String?, _ variable: String, _ fallback: String) -> String {
            flag ?? ServiceOptions.environment(variable) ?? fallback
        }
        try await startup.prepareDatabase()
        var configuration = CleanupConfiguration(
            database: startup.database,
            identity: try startup.clientConfiguration(
                service: "identity",
                address: address(identity, "FOYER_IDENTITY_ADDRESS", "127.0.0.1:7401")
            ),
            guestQuota: try startup.clientConfiguration(
                service: "guest-quota",
                address: address(guestQuota, "FOYER_GUEST_QUOTA_ADDRESS", "127.0.0.1:7402")
            ),
            userData: try startup.clientConfiguration(
                service: "user-data",
                address: address(userData, "FOYER_USER_DATA_ADDRESS", "127.0.0.1:7403")
            )
        )
        configuration.now = startup.now
        let day: Int64 = 86_400
        if let days = try number(ttlDays, "FOYER_CLEANUP_TTL_DAYS") { configuration.guestTTL = .seconds(days * day) }
        if let seconds = try number(ttlSeconds, "FOYER_CLEANUP_TTL_SECONDS") {
            configuration.guestTTL = .seconds(seconds)
        }
        if let seconds = try number(intervalSeconds, "FOYER_CLEANUP_INTERVAL_SECONDS") {
            configuration.sweepInterval = .seconds(seconds)
        }
        if let seconds = try number(graceSeconds, "FOYER_CLEANUP_GRACE_SECONDS") {
            configuration.recoveryGrace = .seconds(seconds)
        }
        if let size = try number(batchSize, "FOYER_CLEANUP_BATCH_SIZE") { configuration.batchSize = Int(size) }
        if let pages = try number(pagesPerSweep, "FOYER_CLEANUP_PAGES_PER_SWEEP") {
            configuration.pagesPerSweep = Int(pages)
        }
        if let width = try number(deletionConcurrency, "FOYER_CLEANUP_DELETION_CONCURRENCY") {
            configuration.deletionConcurrency = Int(width)
        }
        if let days = try number(retentionDays, "FOYER_CLEANUP_RETENTION_DAYS") {
            configuration.recordRetention = .seconds(days * day)
        }
        if let seconds = try number(claimSeconds, "FOYER_CLEANUP_CLAIM_SECONDS") {
            configuration.claimLifetime = .seconds(seconds)
        }
        if let replica = replicaID ?? ServiceOptions.environment("FOYER_CLEANUP_REPLICA_ID") {
            configuration.replicaID = replica
        }
        if let key = ServiceOptions.environment("FOYER_CLEANUP_PSEUDONYM_KEY") {
            configuration.pseudonymKey = try CleanupConfiguration.pseudonymKey(base64URL: key)
        }
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
        do {
            try await ServiceRunner.run(services: service.services, logger: startup.logger)
        } catch {
            try? await service.close()
            throw error
        }
        try await service.close()
    }

    /// A flag's value, else the environment variable's (a non-negative whole number), else nil.
    private func number(_ flag: Int?, _ variable: String) throws -> Int64? {
        if let flag {
            guard flag >= 0 else { throw ValidationError("the option for \(variable) must not be negative") }
            return Int64(flag)
        }
        guard let text = ServiceOptions.environment(variable) else { return nil }
        guard let value = Int64(text), value >= 0 else {
            throw ValidationError("\(variable) must be a whole number, not '\(text)'")
        }
        return value
    }
}
