import ArgumentParser
import Foundation
import FoyerClient
import FoyerLoad

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `foyer load`: drives a scenario against the gateway with many virtual users and reports throughput, latency
/// and errors.
struct LoadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Load-test the gateway: run a scenario with many virtual users and report throughput and latency.",
        discussion: """
            Scenarios:
            \(LoadScenario.allCases.map { "  \($0.rawValue): \($0.summary)" }.joined(separator: "\n"))

            The run stops by itself: after --duration, or once --requests requests were made (iterations under \
            way finish, so accounts are never left half made); with neither it runs for \
            \(LoadDuration.text(LoadPlan.defaultDuration)). Refusals a scenario expects (the guest's write past \
            its quota) are counted as outcomes, not errors.

            Each guest sign-in names its own source address from 198.18.0.0/15 so sign-up admission does not \
            throttle the run; the gateway honours that only when started with --load-test-sources (or \
            FOYER_LOAD_TEST_SOURCES=1), as `make run` does, and only on its binary listener (through the HTTP \
            edge, --gateway https://..., the source is sent as X-Forwarded-For, read only from a trusted proxy). \
            Never enable that in production.

            Output: a table on stdout (with --json, one JSON object: totals, per-operation counts and latency \
            percentiles in ms, errors and outcomes by status, a per-second timeline). While it runs, a progress \
            line on stderr when stderr is a terminal. Exits 0 when the run had no errors, 1 otherwise.
            """
    )

    @Option(help: ArgumentHelp("The scenario: guest-signup, guest-journey, merge, read-write, refresh."))
    var scenario: String

    @Option(help: ArgumentHelp("How long to start iterations: 500ms, 30s, 2m, 1h, 1m30s.", valueName: "duration"))
    var duration: String?

    @Option(help: ArgumentHelp("Start no iteration once this many requests were made.", valueName: "count"))
    var requests: Int?

    @Option(help: ArgumentHelp("Virtual users, each running the scenario in a loop.", valueName: "users"))
    var concurrency: Int = 10

    @Option(
        help: ArgumentHelp(
            "Requests per second for all users together (default: as fast as answered).",
            valueName: "per-second"
        )
    )
    var rate: Double?

    @Option(
        help: ArgumentHelp(
            "Connections to the gateway, shared by the users (default: min(users, 4)).",
            valueName: "count"
        )
    )
    var connections: Int?

    @Option(help: ArgumentHelp("Documents each guest writes before merging (merge scenario).", valueName: "count"))
    var documents: Int = 5

    @Flag(help: "Print the report as one JSON object instead of a table.")
    var json = false

    @Option(
        help: ArgumentHelp(
            "Also write a chart of throughput and latency over time: FILE.html or FILE.svg.",
            valueName: "file"
        )
    )
    var report: String?

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard global.session == nil else {
            throw ValidationError("foyer load makes a session per virtual user: --session is not used")
        }
    }

    func run() async throws {
        let clean: Bool
        do throws(FoyerError) {
            clean = try await runAndReport()
        } catch {
            Output.failure(Output.errorObject(error))
            throw ExitCode.failure
        }
        guard clean else { throw ExitCode.failure }
    }

    /// Runs the plan, writes the chart and prints the report; returns whether the run had no error.
    private func runAndReport() async throws(FoyerError) -> Bool {
        let (runner, chart) = try prepare()
        let line = isatty(STDERR_FILENO) == 1 ? LoadProgressLine() : nil
        let result = await runner.run(
            progress: line.map { line in { @Sendable (progress: LoadProgress) in line.show(progress) } }
        )
        line?.finish()
        if let report, let chart {
            try Self.write(LoadChart.render(result, as: chart), to: report)
        }
        if json {
            Output.success(Render.load(result, chartPath: report))
        } else {
            FileHandle.standardOutput.write(Data(result.table.utf8))
        }
        return result.isClean
    }

    /// The runner for the options, and the chart format when --report is given (checked before the run).
    private func prepare() throws(FoyerError) -> (LoadRunner, LoadChart.Format?) {
        let plan = try LoadPlan(
            scenario: try LoadScenario.named(scenario),
            duration: try duration.map { (text) throws(FoyerError) in try LoadDuration.parse(text) },
            requests: requests,
            concurrency: concurrency,
            connections: connections,
            rate: rate,
            documents: documents
        )
        let chart = try report.map { (path) throws(FoyerError) in try LoadChart.Format(path: path) }
        var configuration = try global.clientConfiguration(stored: nil)
        configuration.peerName = "foyer-load"
        return (LoadRunner(plan: plan, configuration: configuration, logger: global.logger("foyer.cli.load")), chart)
    }

    private static func write(_ text: String, to path: String) throws(FoyerError) {
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw .invalidInput("cannot write the report \(path): \(error.localizedDescription)")
        }
    }
}

/// The progress line on a terminal: rewritten in place each second, cleared at the end.
struct LoadProgressLine: Sendable {
    func show(_ progress: LoadProgress) {
        let seconds = progress.elapsed.components.seconds
        let text =
            "\r\u{1B}[2K  \(seconds)s  \(progress.requests) requests  \(progress.lastSecondRequests)/s  "
            + "\(progress.errors) errors"
        FileHandle.standardError.write(Data(text.utf8))
    }

    func finish() {
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }
}
