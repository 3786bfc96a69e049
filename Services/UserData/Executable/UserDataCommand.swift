import ArgumentParser
import FoyerRPC
import FoyerServiceKit
import FoyerUserData

/// `user-data`: the per-user document store.
@main
struct UserDataCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user-data",
        abstract:
            "Foyer's user-data service: a per-user document store; merges guests into accounts; deletes users' data.",
        discussion: "Every option can also be set by the environment variable named in its help."
    )

    @OptionGroup var common: ServiceOptions

    @Option(help: "Largest document value in bytes. (env: FOYER_VALUE_BYTES_MAX; default: 262144)")
    var valueBytesMax: Int?
    @Option(
        help:
            "Seconds a deleted user's uid keeps refusing writes; above identity's access-token lifetime. (env: FOYER_DELETION_TOMBSTONE_SECONDS; default: 86400)"
    )
    var deletionTombstoneSeconds: Int?
    @Option(
        help:
            "Days a finished merge's records (they name both uids) are kept; as guest-quota's. (env: FOYER_MERGE_RECORD_RETENTION_DAYS; default: 7)"
    )
    var mergeRecordRetentionDays: Int?

    func run() async throws {
        let startup = try ServiceStartup(service: "user-data", defaultPort: 7403, options: common)
        if common.checkHealth { throw ExitCode(await startup.checkHealth() ? 0 : 1) }
        var configuration = try await startup.storeConfiguration(UserDataConfiguration.self)
        let settings = SettingsReader()
        configuration.valueByteCountMax =
            try settings.value(valueBytesMax, .positive("--value-bytes-max", "FOYER_VALUE_BYTES_MAX"))
            ?? configuration.valueByteCountMax
        let tombstone = Setting<Int>.positive("--deletion-tombstone-seconds", "FOYER_DELETION_TOMBSTONE_SECONDS")
        if let seconds = try settings.value(deletionTombstoneSeconds, tombstone) {
            configuration.deletionTombstoneLifetime = .seconds(seconds)
        }
        let retention = Setting<Int>.positive("--merge-record-retention-days", "FOYER_MERGE_RECORD_RETENTION_DAYS")
        if let days = try settings.value(mergeRecordRetentionDays, retention) {
            configuration.mergeRecordRetention = .seconds(days * 86_400)
        }
        do {
            try configuration.validate()
        } catch let error as UserDataConfigurationError {
            throw ValidationError(error.message)
        }
        let service = try await UserDataService.make(
            configuration: configuration,
            server: startup.serverConfiguration(),
            logger: startup.logger
        )
        try await ServiceRunner.run(
            services: startup.withTelemetry(startup.withCertificateReload([service.server])),
            logger: startup.logger,
            thenClose: service.close
        )
    }
}
