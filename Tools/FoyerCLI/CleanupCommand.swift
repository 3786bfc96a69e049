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

        @OptionGroup var cluster: ClusterConnectionOptions

        @Option(help: ArgumentHelp("Seconds the call may take.", valueName: "seconds"))
        var timeout: Int = 300

        func withClient(
            _ body: (FoyerCleanupClient) async throws(FoyerError) -> JSONValue
        ) async throws(FoyerError) -> JSONValue {
            try await cluster.run(
                FoyerCleanupClient.self,
                address: cleanup,
                addressVariable: "FOYER_CLEANUP_ADDRESS",
                defaultPort: 7404,
                timeoutSeconds: timeout,
                logLabel: "foyer.cli.cleanup",
                body
            )
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
