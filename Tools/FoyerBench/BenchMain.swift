import Foundation
import Logging

/// `foyer-bench`: prints Foyer's numbers on this machine, each beside its comparison measured in the same run.
///
/// Usage: `foyer-bench [--full] [--seconds N] [--json FILE]`
/// - `--seconds N`: measuring time per RPC row (default 3; `--full` makes it 10).
/// - `--json FILE`: also write the results as JSON.
@main
struct BenchMain {
    static func main() async throws {
        var options = BenchOptions()
        var arguments = CommandLine.arguments.dropFirst()
        while let argument = arguments.popFirst() {
            switch argument {
            case "--full": options.seconds = 10
            case "--seconds": options.seconds = Double(arguments.popFirst() ?? "") ?? options.seconds
            case "--json": options.jsonPath = arguments.popFirst()
            case "--help", "-h":
                print("usage: foyer-bench [--full] [--seconds N] [--json FILE]")
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
        report.printRPC()
        report.lz4 = LZ4Benchmark().run()
        report.printLZ4()

        if let path = options.jsonPath {
            try report.json().write(to: URL(fileURLWithPath: path))
            print("\nwrote \(path)")
        }
    }
}

struct BenchOptions {
    var seconds: Double = 3
    var jsonPath: String?
}
