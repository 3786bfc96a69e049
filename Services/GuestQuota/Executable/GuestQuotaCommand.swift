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
    @Option(
        help:
            "Guest sign-ups allowed per IPv6 /48, all its /64s together, per hour. (env: FOYER_SIGNUPS_PER_NETWORK_PER_HOUR; default: 120)"
    )
    var signupsPerNetworkPerHour: Int?
    @Option(help: "Most guests alive at once across the cluster. (env: FOYER_LIVE_GUESTS_MAX; default: 1000000)")
    var liveGuestsMax: Int?
    @Option(
        help:
            "Percent of the live-guest cap past which a warning is logged (at most every 10 minutes). (env: FOYER_LIVE_GUESTS_WARNING_PERCENT; default: 80)"
    )
    var liveGuestsWarningPercent: Int?
    @Option(
        help:
            "Days a merge's record (it names both uids) is kept; as user-data's. (env: FOYER_MERGE_RECORD_RETENTION_DAYS; default: 7)"
    )
    var mergeRecordRetentionDays: Int?

    func run() async throws {
        let startup = try ServiceStartup(service: "guest-quota", defaultPort: 7402, options: common)
        if common.checkHealth { throw ExitCode(await startup.checkHealth() ? 0 : 1) }
        var configuration = try await startup.storeConfiguration(GuestQuotaConfiguration.self)
        let settings = SettingsReader()
        if let path = try settings.value(plansFile, .text("--plans-file", "FOYER_PLANS_FILE")) {
            configuration.plans = try GuestQuotaConfiguration.loadPlans(from: path)
        }
        if let value = try settings.value(signupsPerHour, .positive("--signups-per-hour", "FOYER_SIGNUPS_PER_HOUR")) {
            configuration.signupsPerSourcePerHour = value
            configuration.signupBurstPerSource = value
        }
        let perNetwork = Setting<Int>.positive("--signups-per-network-per-hour", "FOYER_SIGNUPS_PER_NETWORK_PER_HOUR")
        if let value = try settings.value(signupsPerNetworkPerHour, perNetwork) {
            configuration.signupsPerNetworkPerHour = value
            configuration.signupBurstPerNetwork = value
        }
        configuration.liveGuestsMax =
            try settings.value(liveGuestsMax, .positive("--live-guests-max", "FOYER_LIVE_GUESTS_MAX"))
            ?? configuration.liveGuestsMax
        let warning = Setting<Int>.int(
            "--live-guests-warning-percent",
            "FOYER_LIVE_GUESTS_WARNING_PERCENT",
            in: 1...100
        )
        if let percent = try settings.value(liveGuestsWarningPercent, warning) {
            configuration.liveGuestsWarningFraction = Double(percent) / 100
        }
        let retention = Setting<Int>.positive("--merge-record-retention-days", "FOYER_MERGE_RECORD_RETENTION_DAYS")
        if let days = try settings.value(mergeRecordRetentionDays, retention) {
            configuration.mergeRecordRetention = .seconds(days * 86_400)
        }
        let (service, denialFlush) = try await GuestQuotaService.makeWithDenialFlush(
            configuration: configuration,
            server: startup.serverConfiguration(),
            logger: startup.logger
        )
        // The flush loop first: the group stops services in reverse order, so it flushes after the server drained.
        try await ServiceRunner.run(
            services: startup.withTelemetry(startup.withCertificateReload([denialFlush, service.server])),
            logger: startup.logger,
            thenClose: service.close
        )
    }
}
