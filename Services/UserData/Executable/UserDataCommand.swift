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
        try await startup.prepareDatabase()
        var configuration = UserDataConfiguration(database: startup.database)
        configuration.now = startup.now
        if let value = try Self.number(valueBytesMax, "FOYER_VALUE_BYTES_MAX") {
            configuration.valueByteCountMax = value
        }
        if let seconds = try Self.number(deletionTombstoneSeconds, "FOYER_DELETION_TOMBSTONE_SECONDS") {
            configuration.deletionTombstoneLifetime = .seconds(seconds)
        }
        if let days = try Self.number(mergeRecordRetentionDays, "FOYER_MERGE_RECORD_RETENTION_DAYS") {
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
        do {
            try await ServiceRunner.run(services: [service.server], logger: startup.logger)
        } catch {
            try? await service.close()
            throw error
        }
        try await service.close()
    }

    /// A flag's value, else the environment variable's (a positive whole number), else nil.
    static func number(_ flag: Int?, _ variable: String) throws -> Int? {
        if let flag { return flag }
        guard let text = ServiceOptions.environment(variable) else { return nil }
        guard let value = Int(text), value > 0 else { throw ValidationError("\(variable) must be a positive number") }
        return value
    }
}
