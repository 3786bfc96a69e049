import ArgumentParser
import FoyerAPI
import FoyerClient

struct CleanupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cleanup",
        abstract: "Operate the cleanup service (internal: needs the cluster secret).",
        subcommands: [Status.self, Sweep.self]
    )

    struct Options: ParsableArguments {
        @Option(
            help: ArgumentHelp(
                "cleanup's address, HOST:PORT. (env: FOYER_CLEANUP_ADDRESS; default: 127.0.0.1:7404)",
                valueName: "host:port"
            )
        )
        var cleanup: String?

        @Option(
            help: ArgumentHelp(
                "The cluster secret file. (env: FOYER_CLUSTER_SECRET_FILE; default: .data/cluster-secret; FOYER_CLUSTER_SECRET, the secret itself, wins over both)",
                valueName: "path"
            )
        )
        var secretFile: String?

        @OptionGroup var tls: ClusterTLSOptions

        @Option(help: ArgumentHelp("Seconds the call may take.", valueName: "seconds"))
        var timeout: Int = 300

        @Option(
            help: ArgumentHelp(
                "Log level of the client's logs on stderr. (env: FOYER_CLI_LOG_LEVEL; default: critical)",
                valueName: "level"
            )
        )
        var logLevel: String?

        func withClient(
            _ body: (FoyerCleanupClient) async throws(FoyerError) -> JSONValue
        ) async throws(FoyerError) -> JSONValue {
            let address = cleanup ?? GlobalOptions.environment("FOYER_CLEANUP_ADDRESS") ?? "127.0.0.1:7404"
            let (host, port) = try FoyerClientConfiguration.parseAddress(address, defaultPort: 7404)
            let path = secretFile ?? GlobalOptions.environment("FOYER_CLUSTER_SECRET_FILE") ?? ".data/cluster-secret"
            let client = FoyerCleanupClient(
                host: host,
                port: port,
                secret: try FoyerCleanupClient.loadSecret(path: path),
                callTimeout: .seconds(max(1, timeout)),
                tls: try tls.resolved(),
                logger: GlobalOptions.logger("foyer.cli.cleanup", level: logLevel)
            )
            let result: Result<JSONValue, FoyerError>
            do throws(FoyerError) {
                result = .success(try await body(client))
            } catch {
                result = .failure(error)
            }
            await client.shutdown()
            return try result.get()
        }
    }

    struct Status: JSONCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Whether a sweep is running, and the last sweep's report.",
            discussion: #"Output: {"running", "lastSweep": {...}|null}."#
        )

        @OptionGroup var options: Options

        func execute() async throws(FoyerError) -> JSONValue {
            try await options.withClient { (client) async throws(FoyerError) in
                let status = try await client.status()
                return .object([
                    ("running", .bool(status.running)),
                    ("lastSweep", status.lastSweep.map(Render.sweep) ?? .null),
                ])
            }
        }
    }

    struct Sweep: JSONCommand {
        static let configuration = CommandConfiguration(
            commandName: "sweep",
            abstract:
                "Delete guests idle past the TTL with all their data, and finish interrupted merges and deletions, now.",
            discussion: """
                With --dry-run, count what a sweep would do and change nothing.
                Output: {"dryRun", "startedAt", "finishedAt", "durationMs", "expiredGuests", "stuckFinished", \
                "skipped", "recordsPurged", "errors", "lastError"}.
                """
        )

        @OptionGroup var options: Options

        @Flag(help: "Count what a sweep would delete; change nothing.")
        var dryRun = false

        func execute() async throws(FoyerError) -> JSONValue {
            try await options.withClient { (client) async throws(FoyerError) in
                Render.sweep(try await client.sweep(dryRun: dryRun))
            }
        }
    }
}
