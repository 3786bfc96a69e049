import Foundation
import FoyerBenchKit
import GRPCEchoBenchKit

/// `grpc-echo-bench`: grpc-swift 2's numbers for the small-call load `foyer-bench` puts on Foyer's RPC.
///
/// Usage: `grpc-echo-bench [--seconds N] [--calibration-calls N] [--json FILE]`
/// - `--seconds N`: measuring time per row (default 3).
/// - `--calibration-calls N`: calls counted for bytes on the wire (default 4096).
/// - `--json FILE`: also write `{"rows": [...], "wire": {...}}`, rows in `foyer-bench`'s `RPCRow` form.
@main
struct GRPCEchoBenchMain {
    static let usage = "usage: grpc-echo-bench [--seconds N] [--calibration-calls N] [--json FILE]"

    static func main() async throws {
        let options = parseOptions()
        let benchmark = GRPCEchoBenchmark(seconds: options.seconds, calibrationCalls: options.calibrationCalls)
        let result = try await benchmark.run()

        print("gRPC small-call round trips over loopback (grpc-swift 2, HTTP/2 plaintext, one connection, 32-byte protobuf echo)")
        BenchTable.rpcLines(result.rows).forEach { print($0) }
        print("\nwire B/call \(result.wire.method)")

        if let path = options.jsonPath {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(result).write(to: URL(fileURLWithPath: path))
            print("\nwrote \(path)")
        }
    }

    private static func parseOptions() -> Options {
        var options = Options()
        var arguments = CommandLine.arguments.dropFirst()
        while let argument = arguments.popFirst() {
            switch argument {
            case "--seconds":
                options.seconds = positive(Double(arguments.popFirst() ?? ""), for: argument)
            case "--calibration-calls":
                options.calibrationCalls = Int(positive(Double(arguments.popFirst() ?? ""), for: argument))
            case "--json":
                guard let path = arguments.popFirst() else { fail("--json needs a file name") }
                options.jsonPath = path
            case "--help", "-h":
                print(usage)
                exit(0)
            default:
                fail("unknown argument \(argument)")
            }
        }
        return options
    }

    private static func positive(_ value: Double?, for option: String) -> Double {
        guard let value, value > 0 else { fail("\(option) needs a positive number") }
        return value
    }

    private static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("\(message)\n\(usage)\n".utf8))
        exit(2)
    }
}

struct Options {
    var seconds: Double = 3
    var calibrationCalls = 4096
    var jsonPath: String?
}
