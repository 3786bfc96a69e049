import Foundation
import FoyerBenchKit
import Logging

/// `foyer-bench`: prints Foyer's numbers on this machine, each beside its comparison measured in the same run.
///
/// Usage: `foyer-bench [--full | --smoke] [--seconds N] [--no-stack] [--grpc FILE] [--json FILE]`
/// - `--full`: the sizes the README quotes (RPC rows of 5 s, cleanup of up to 100,000 guests); otherwise quicker.
/// - `--seconds N`: measuring time per RPC row (default 3; `--full` makes it 5).
/// - `--smoke`: tiny sizes that only check every row runs.
/// - `--no-stack`: skip the end-to-end rows (which need the five executables built in the same configuration).
/// - `--grpc FILE`: rows of the gRPC comparison (`Benchmarks/`'s `grpc-echo-bench --json FILE`) to print beside.
/// - `--json FILE`: also write the results as JSON.
@main
struct BenchMain {
    static func main() async {
        do {
            try await run()
        } catch {
            FileHandle.standardError.write(Data("foyer-bench: \(error)\n".utf8))
            exit(1)
        }
    }

    static func run() async throws {
        var options = BenchOptions()
        var arguments = CommandLine.arguments.dropFirst()
        while let argument = arguments.popFirst() {
            switch argument {
            case "--full":
                options.seconds = 5
                options.full = true
            case "--no-stack": options.stack = false
            case "--smoke":
                options.seconds = 0.2
                options.smoke = true
            case "--grpc": options.grpcPath = arguments.popFirst()
            case "--seconds": options.seconds = Double(arguments.popFirst() ?? "") ?? options.seconds
            case "--json": options.jsonPath = arguments.popFirst()
            case "--help", "-h":
                print("usage: foyer-bench [--full | --smoke] [--seconds N] [--no-stack] [--grpc FILE] [--json FILE]")
                return
            default:
                FileHandle.standardError.write(Data("unknown argument \(argument)\n".utf8))
                exit(2)
            }
        }
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
