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

    func run() async throws {
        let startup = try ServiceStartup(service: "user-data", defaultPort: 7403, options: common)
        if common.checkHealth { throw ExitCode(await startup.checkHealth() ? 0 : 1) }
        try await startup.prepareDatabase()
        var configuration = UserDataConfiguration(database: startup.database)
        configuration.now = startup.now
        if let flag = valueBytesMax {
            configuration.valueByteCountMax = flag
        } else if let text = ServiceOptions.environment("FOYER_VALUE_BYTES_MAX") {
            guard let value = Int(text), value > 0 else {
                throw ValidationError("FOYER_VALUE_BYTES_MAX must be a positive number")
            }
            configuration.valueByteCountMax = value
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
}
