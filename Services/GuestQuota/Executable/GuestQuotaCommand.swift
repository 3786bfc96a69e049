import ArgumentParser
import FoyerGuestQuota
import FoyerRPC
import FoyerServiceKit

/// `guest-quota`: plans, counters and feature gates; sign-up admission by source; the cap on live guests.
@main
struct GuestQuotaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "guest-quota",
        abstract: "Foyer's guest-quota service: quotas and features per plan, sign-up admission, the live-guest cap.",
        discussion: "Every option can also be set by the environment variable named in its help."
    )

    @OptionGroup var common: ServiceOptions

    @Option(
        help:
            "A JSON file of plans (see Services/GuestQuota/README.md). (env: FOYER_PLANS_FILE; default: built-in guest and member plans)"
    )
    var plansFile: String?
    @Option(
        help:
            "Guest sign-ups allowed per source address (IPv6: per /64) per hour. (env: FOYER_SIGNUPS_PER_HOUR; default: 30)"
    )
    var signupsPerHour: Int?
    @Option(help: "Most guests alive at once across the cluster. (env: FOYER_LIVE_GUESTS_MAX; default: 1000000)")
    var liveGuestsMax: Int?
    @Option(
        help:
            "Days a merge's record (it names both uids) is kept; as user-data's. (env: FOYER_MERGE_RECORD_RETENTION_DAYS; default: 7)"
    )
    var mergeRecordRetentionDays: Int?

    func run() async throws {
        let startup = try ServiceStartup(service: "guest-quota", defaultPort: 7402, options: common)
        if common.checkHealth { throw ExitCode(await startup.checkHealth() ? 0 : 1) }
        try await startup.prepareDatabase()
        var configuration = GuestQuotaConfiguration(database: startup.database)
        configuration.now = startup.now
        if let path = plansFile ?? ServiceOptions.environment("FOYER_PLANS_FILE") {
            configuration.plans = try GuestQuotaConfiguration.loadPlans(from: path)
        }
        if let value = try Self.number(signupsPerHour, "FOYER_SIGNUPS_PER_HOUR") {
            configuration.signupsPerSourcePerHour = value
            configuration.signupBurstPerSource = value
        }
        if let value = try Self.number(liveGuestsMax, "FOYER_LIVE_GUESTS_MAX") { configuration.liveGuestsMax = value }
        if let days = try Self.number(mergeRecordRetentionDays, "FOYER_MERGE_RECORD_RETENTION_DAYS") {
            configuration.mergeRecordRetention = .seconds(days * 86_400)
        }
        let service = try await GuestQuotaService.make(
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

    static func number(_ flag: Int?, _ variable: String) throws -> Int? {
        if let flag { return flag }
        guard let text = ServiceOptions.environment(variable) else { return nil }
        guard let value = Int(text), value > 0 else { throw ValidationError("\(variable) must be a positive number") }
        return value
    }
}
