import ArgumentParser
import Foundation
import FoyerClient
import FoyerLoad
import FoyerSoakKit
import FoyerStackProcesses
import Logging

/// `foyer-soak`: the whole stack under a mix of load scenarios at 70 % of the capacity it measures first, minute
/// after minute, watching errors, latency and each service's memory and open files.
@main
struct SoakMain: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "foyer-soak",
        abstract: "Runs the stack under a mix of load at 70 % of its measured capacity and checks it stays healthy.",
        discussion: """
            Starts the five executables built beside foyer-soak on SQLite in a temporary directory (or on \
            --postgres-url), runs every load scenario side by side (guest-signup, guest-journey, merge, \
            read-write, refresh) unthrottled for --probe-seconds to measure each one's requests per second, then \
            for --minutes at 70 % of that, without a break. Each minute prints requests, errors and expected \
            outcomes by status, p50/p99 per scenario and operation, and each service's RSS (VmRSS, sampled every \
            second: the lowest and the peak of the minute) and open file descriptors.

            Exit status 1 when: any request fails unexpectedly (in the probe or a minute; expected refusals such as \
            a guest's write over its quota are outcomes, not errors), an iteration is cut short, a service stops \
            or does not stop cleanly at the end, or, for any service, the largest of the lowest RSS of minutes 3, \
            4, … is more than 10 % above the lowest RSS of minute 2 (the lowest, so memory held for a moment, such \
            as identity's password hashing, does not count; a leak raises it). The memory check needs at least 3 \
            minutes; shorter runs check errors only.
            """
    )

    @Option(help: ArgumentHelp("How long the soak runs, after the probe (1 to 1440).", valueName: "minutes"))
    var minutes = 10

    @Option(
        name: .customLong("probe-seconds"),
        help: ArgumentHelp("How long the unthrottled capacity probe runs (1 to 600).", valueName: "seconds")
    )
    var probeSeconds = 20

    @Option(help: ArgumentHelp("Virtual users per scenario (1 to 200).", valueName: "count"))
    var concurrency = 8

    @Option(
        name: .customLong("postgres-url"),
        help: ArgumentHelp(
            "Run the services on this PostgreSQL database, each in a new schema soak_<run>_<service> (left in "
                + "place for inspection), instead of SQLite.",
            valueName: "url"
        )
    )
    var postgresURL: String?

    @Option(
        name: .customLong("json"),
        help: ArgumentHelp("Also write the per-minute figures and the verdict as JSON.", valueName: "file")
    )
    var jsonPath: String?

    @Option(
        name: .customLong("minute-seconds"),
        help: ArgumentHelp("For tests only: the length of a \"minute\" in seconds (1 to 60).", valueName: "seconds")
    )
    var minuteSeconds = 60

    func validate() throws {
        guard (1...1440).contains(minutes) else { throw ValidationError("--minutes is 1 to 1440") }
        guard (1...600).contains(probeSeconds) else { throw ValidationError("--probe-seconds is 1 to 600") }
        guard (1...200).contains(concurrency) else { throw ValidationError("--concurrency is 1 to 200") }
        guard (1...60).contains(minuteSeconds) else { throw ValidationError("--minute-seconds is 1 to 60") }
    }

    func run() async throws {
        var logger = Logger(label: "foyer.soak")
        logger.logLevel = .warning
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("foyer-soak-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let stack = try await StackProcesses.start(
            try SoakStack.configuration(directory: directory, database: database())
        )
        let result: SoakResult
        do {
            result = try await soak(stack, logger: logger)
        } catch {
            await stack.killAll()
            throw error
        }
        if let jsonPath { try result.json().write(to: URL(fileURLWithPath: jsonPath), options: .atomic) }
        Self.say(SoakText.summary(minutes: result.minutes, verdict: result.verdict))
        guard result.verdict.passed else { throw ExitCode.failure }
    }

    private func database() -> StackDatabase {
        guard let postgresURL else { return .sqlite }
        let run = UUID().uuidString.lowercased().filter { $0.isLetter || $0.isNumber }.prefix(8)
        let prefix = "soak_\(run)"
        Self.say("on PostgreSQL, in the schemas \(prefix)_* (left in place)\n")
        return .postgres(url: postgresURL, schemaPrefix: prefix)
    }

    /// The probe, the minutes and the verdict; stops the stack at the end.
    private func soak(_ stack: StackProcesses, logger: Logger) async throws -> SoakResult {
        var client = FoyerClientConfiguration(host: "127.0.0.1", port: stack.port(of: .gateway))
        client.peerName = "foyer-soak"
        let mix = SoakMix(concurrency: concurrency, configuration: client, logger: logger)
        let sampler = SoakSampler(stack: stack)
        var probe = SoakMinute(minute: 0, reports: [], services: [:])
        var rates: [LoadScenario: Double] = [:]
        var soaked: [SoakMinute] = []
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await sampler.run() }
            let probeReports = try await mix.probe(duration: .seconds(probeSeconds))
            probe = SoakMinute(minute: 0, reports: probeReports, services: sampler.take())
            Self.say(SoakText.minute(probe, label: "capacity probe (\(probeSeconds) s, unthrottled)"))
            rates = SoakRates.make(probe: probeReports, fraction: SoakRates.defaultFraction)
            Self.say(
                "soak at \(LoadReport.decimal(SoakRates.defaultFraction * 100, places: 0)) % of that: "
                    + SoakMix.scenarios.map { "\($0.rawValue) \(LoadReport.decimal(rates[$0] ?? 0, places: 1))/s" }
                    .joined(separator: ", ") + "\n"
            )
            try await mix.soak(minutes: minutes, minute: .seconds(minuteSeconds), rates: rates) { index, reports in
                let minute = SoakMinute(minute: index, reports: reports, services: sampler.take())
                Self.say(SoakText.minute(minute))
                soaked.append(minute)
            }
            group.cancelAll()
        }
        var verdict = SoakVerdict.judge(probe: probe, minutes: soaked)
        do {
            try await stack.terminate()
        } catch {
            verdict.fail("the stack did not stop cleanly: \(error)")
        }
        return SoakResult(
            probe: probe,
            loadFraction: SoakRates.defaultFraction,
            rates: Dictionary(uniqueKeysWithValues: rates.map { ($0.key.rawValue, $0.value) }),
            minuteSeconds: Double(minuteSeconds),
            minutes: soaked,
            verdict: verdict
        )
    }

    /// Writes `text` to standard output at once (the run is long; a pipe would otherwise hold it back).
    private static func say(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
