import ArgumentParser
import Foundation
import FoyerBenchKit
import Logging

/// `foyer-bench`: prints Foyer's numbers on this machine, each beside its comparison measured in the same run.
///
/// Usage: `foyer-bench [--full | --smoke] [--seconds N] [--no-stack] [--grpc FILE] [--json FILE]`
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
        name: .customLong("grpc"),
        help: ArgumentHelp(
            "Rows of the gRPC comparison (Benchmarks/'s `grpc-echo-bench --json FILE`) to print beside.",
            valueName: "file"
        )
    )
    var grpcPath: String?

    @Option(name: .customLong("json"), help: ArgumentHelp("Also write the results as JSON.", valueName: "file"))
    var jsonPath: String?

    func run() async throws {
        do {
            try await Self.run(self.options)
        } catch {
            FileHandle.standardError.write(Data("foyer-bench: \(error)\n".utf8))
            throw ExitCode.failure
        }
    }

    /// The options the benchmarks read; an explicit `--seconds` wins over the preset of `--smoke` or `--full`.
    var options: BenchOptions {
        var options = BenchOptions()
        options.full = self.full
        options.smoke = self.smoke
        options.seconds = self.seconds ?? (self.smoke ? 0.2 : self.full ? 5 : options.seconds)
        options.stack = !self.noStack
        options.grpcPath = self.grpcPath
        options.jsonPath = self.jsonPath
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

        report.rpc = try await RPCBenchmark(seconds: options.seconds).run()
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
        if options.stack {
            let logger = Logger(label: "foyer.bench")
            report.stack = try await StackBenchmark(
                sizes: options.smoke ? .smoke : .make(full: options.full),
                logger: logger
            ).run()
            report.printStack()
            fflush(nil)  // each table as soon as it is measured, also when stdout is a file
        }

        if let path = options.jsonPath {
            try report.json().write(to: URL(fileURLWithPath: path))
            print("\nwrote \(path)")
        }
    }
}

struct BenchOptions {
    var seconds: Double = 3
    var full = false
    var smoke = false
    var stack = true
    var grpcPath: String?
    var jsonPath: String?
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
