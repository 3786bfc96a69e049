import ArgumentParser
import Foundation
import FoyerBenchKit
import FoyerStackProcesses
import Logging

/// `foyer-bench`: prints Foyer's numbers on this machine, each beside its comparison measured in the same run.
///
/// Usage: `foyer-bench [--full | --smoke] [--seconds N] [--no-stack] [--engines sqlite,postgres]
/// [--postgres-url URL] [--grpc FILE] [--json FILE] [--baseline FILE] [--write-baseline] [--deletion-only]
/// [--cleanup-guests N,N]`
@main
struct BenchMain: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "foyer-bench",
        abstract: "Prints Foyer's numbers on this machine, each beside its comparison measured in the same run."
    )

    @Flag(help: "The sizes the README quotes (RPC rows of 5 s, cleanup of up to 100,000 guests); otherwise quicker.")
    var full = false

    @Flag(help: "Tiny sizes that only check every row runs (RPC rows of 0.2 s).")
    var smoke = false

    @Option(help: "Measuring time per RPC row in seconds (default 3; --full makes it 5, --smoke 0.2).")
    var seconds: Double?

    @Flag(
        name: .customLong("no-stack"),
        help: "Skip the end-to-end rows (which need the five executables built in the same configuration)."
    )
    var noStack = false

    @Option(
        help: ArgumentHelp(
            "The engines the end-to-end rows run on, each once on fresh databases, printed side by side.",
            valueName: "sqlite,postgres"
        )
    )
    var engines = "sqlite,postgres"

    @Option(
        name: .customLong("postgres-url"),
        help: ArgumentHelp(
            "The PostgreSQL database of the PostgreSQL rows (each run makes and drops its own schemas); without it, foyer-bench starts a throwaway server with scripts/throwaway-postgres.sh, or skips those rows when PostgreSQL is not installed.",
            valueName: "url"
        )
    )
    var postgresURL: String?

    @Option(
        name: .customLong("grpc"),
        help: ArgumentHelp(
            "Rows of the gRPC comparison (Benchmarks/'s `grpc-echo-bench --json FILE`) to print beside.",
            valueName: "file"
        )
    )
    var grpcPath: String?

    @Option(name: .customLong("json"), help: ArgumentHelp("Also write the results as JSON.", valueName: "file"))
    var jsonPath: String?

    @Option(
        help: ArgumentHelp(
            "The ratios of the last accepted run, printed beside this run's (flagged when more than 25% below).",
            valueName: "file"
        )
    )
    var baseline = BenchBaseline.defaultPath

    @Flag(
        name: .customLong("write-baseline"),
        help: "Keep this run's ratios, with the commit, as the baseline (after a run whose numbers are accepted)."
    )
    var writeBaseline = false

    @Option(
        name: .customLong("sqlite-group-commit"),
        help: ArgumentHelp(
            "The services' --sqlite-group-commit (1: every transaction commits alone), to measure group commit.",
            valueName: "n"
        )
    )
    var sqliteGroupCommit: Int?

    @Flag(
        name: .customLong("deletion-only"),
        help: "Only the end-to-end delete-everything and cleanup rows (no RPC, LZ4, hashing or other stack rows)."
    )
    var deletionOnly = false

    @Option(
        name: .customLong("cleanup-guests"),
        help: ArgumentHelp("The cleanup rows' guest counts, in place of the preset's.", valueName: "n,n,...")
    )
    var cleanupGuests: String?

    func run() async throws {
        do {
            try await Self.run(try self.makeOptions())
        } catch {
            FileHandle.standardError.write(Data("foyer-bench: \(error)\n".utf8))
            throw ExitCode.failure
        }
    }

    /// The options the benchmarks read; an explicit `--seconds` wins over the preset of `--smoke` or `--full`.
    func makeOptions() throws -> BenchOptions {
        var options = BenchOptions()
        options.engines = try BenchEngine.parseList(self.engines)
        options.postgresURL = self.postgresURL
        options.full = self.full
        options.smoke = self.smoke
        options.seconds = self.seconds ?? (self.smoke ? 0.2 : self.full ? 5 : options.seconds)
        options.stack = !self.noStack
        options.grpcPath = self.grpcPath
        options.jsonPath = self.jsonPath
        options.baselinePath = self.baseline
        options.writeBaseline = self.writeBaseline
        options.sqliteGroupCommit = self.sqliteGroupCommit
        options.deletionOnly = self.deletionOnly
        if let cleanupGuests {
            let counts = cleanupGuests.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard !counts.isEmpty, counts.allSatisfy({ ($0 ?? 0) > 0 }) else {
                throw ValidationError("--cleanup-guests takes positive counts separated by commas")
            }
            options.cleanupGuests = counts.compactMap { $0 }
        }
        return options
    }

    static func run(_ options: BenchOptions) async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .error
            return handler
        }
        var report = BenchReport(machine: MachineDescription.current())
        print("Foyer benchmarks on \(report.machine.summary)\n")

        if !options.deletionOnly {
            try await runLocal(options, into: &report)
        }
        if options.stack {
            try await runStack(options, into: &report)
            report.printStack()
            fflush(nil)  // each table as soon as it is measured, also when stdout is a file
        }

        report.targets = report.judgedTargets()
        report.printTargets()
        report.printBaseline(try BenchBaseline.load(options.baselinePath), path: options.baselinePath)
        fflush(nil)
        if options.writeBaseline {
            try BenchBaseline.accepting(report).write(to: options.baselinePath)
            print("wrote the baseline \(options.baselinePath)")
        }

        if let path = options.jsonPath {
            try report.json().write(to: URL(fileURLWithPath: path))
            print("\nwrote \(path)")
        }
    }
}

extension BenchMain {
    /// The rows measured in this process: RPC against raw NIO (and gRPC), LZ4, the message mix, password hashing.
    static func runLocal(_ options: BenchOptions, into report: inout BenchReport) async throws {
        report.rpc = try await RPCBenchmark(seconds: options.seconds, rounds: options.smoke ? 1 : 3).run()
        if let path = options.grpcPath {
            report.rpc += try GRPCRows.load(path)
        }
        report.printRPC()
        fflush(nil)  // each table as soon as it is measured, also when stdout is a file
        report.lz4 = LZ4Benchmark().run()
        report.printLZ4()
        report.printSwiftLZ4()
        fflush(nil)  // each table as soon as it is measured, also when stdout is a file
        report.messageMix = MessageMix.run()
        report.printMessageMix()
        fflush(nil)  // each table as soon as it is measured, also when stdout is a file
        report.passwordHashes = PasswordHashBenchmark(seconds: options.smoke ? 0 : options.full ? 10 : 4).run()
        report.printPasswordHashes()
        fflush(nil)  // each table as soon as it is measured, also when stdout is a file
    }

    /// The end-to-end rows once per engine of `options`, on a throwaway PostgreSQL unless `--postgres-url` names one
    /// (stopped at the end, also on failure); the PostgreSQL rows are skipped, with a line saying so, when neither a
    /// URL nor an installed PostgreSQL is at hand.
    static func runStack(_ options: BenchOptions, into report: inout BenchReport) async throws {
        let logger = Logger(label: "foyer.bench")
        var engines = options.engines
        var postgresURL = options.postgresURL
        var server: ThrowawayPostgres?
        if engines.contains(.postgres), postgresURL == nil {
            if ThrowawayPostgres.isInstalled {
                FileHandle.standardError.write(Data("  starting a throwaway PostgreSQL...\n".utf8))
                let started = try await ThrowawayPostgres.start()
                server = started
                postgresURL = started.url
            } else {
                print(
                    "PostgreSQL rows skipped: PostgreSQL is not installed (`make deps` installs it) and no --postgres-url was given\n"
                )
                engines.removeAll { $0 == .postgres }
            }
        }
        do {
            if let server { try await PostgresServer.makeDurable(url: server.url, logger: logger) }
            if let postgresURL, engines.contains(.postgres) {
                report.postgres = try await PostgresServer.describe(url: postgresURL, logger: logger)
            }
            for engine in engines {
                FileHandle.standardError.write(Data("  end-to-end rows on \(engine.title):\n".utf8))
                let database: StackDatabase =
                    switch engine {
                    case .sqlite: .sqlite
                    case .postgres:
                        .postgres(
                            url: postgresURL ?? "",
                            schemaPrefix: "bench_\(UUID().uuidString.prefix(8).lowercased())"
                        )
                    }
                var sizes: StackSizes = options.smoke ? .smoke : .make(full: options.full)
                if let guests = options.cleanupGuests { sizes.cleanupGuests = guests }
                report.stacks.append(
                    try await StackBenchmark(
                        sizes: sizes,
                        database: database,
                        sqliteGroupCommit: options.sqliteGroupCommit,
                        deletionOnly: options.deletionOnly,
                        logger: logger
                    ).run()
                )
            }
        } catch {
            await server?.stop()
            throw error
        }
        await server?.stop()
    }
}

struct BenchOptions {
    var seconds: Double = 3
    var full = false
    var smoke = false
    var stack = true
    var engines = BenchEngine.allCases
    var postgresURL: String?
    var grpcPath: String?
    var jsonPath: String?
    var baselinePath = BenchBaseline.defaultPath
    var writeBaseline = false
    var sqliteGroupCommit: Int?
    var deletionOnly = false
    var cleanupGuests: [Int]?
}

/// The gRPC comparison's rows, measured by `Benchmarks/` (a separate package, so the main build never pulls gRPC).
enum GRPCRows {
    private struct File: Decodable {
        var rows: [RPCRow]
    }

    static func load(_ path: String) throws -> [RPCRow] {
        try JSONDecoder().decode(File.self, from: Data(contentsOf: URL(fileURLWithPath: path))).rows
    }
}
