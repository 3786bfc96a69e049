import Foundation
import FoyerBenchKit

/// Everything one `foyer-bench` run measured, printable as tables and writable as JSON.
struct BenchReport: Codable {
    var machine: MachineDescription
    var rpc: [RPCRow] = []
    var lz4: [LZ4Benchmark.Row] = []
    var messageMix: [MessageMix.Row] = []
    var stack: StackReport?

    func printRPC() {
        print("RPC small-call round trips over loopback (one connection, 32-byte echo)")
        BenchTable.rpcLines(rpc).forEach { print($0) }
        print("")
    }

    func printLZ4() {
        print(
            "LZ4: the wire codec (BodyCompression on liblz4, as the services run it) against liblz4 called directly, MB/s"
        )
        let widths = [8, 10, 12, 12, 7, 12, 12, 7]
        print(
            BenchTable.row(
                ["bytes", "→ bytes", "codec comp", "liblz4 comp", "ratio", "codec dec", "liblz4 dec", "ratio"],
                widths: widths
            )
        )
        for entry in lz4 {
            print(
                BenchTable.row(
                    [
                        "\(entry.payloadBytes)", "\(entry.compressedBytes)",
                        String(format: "%.0f", entry.codecCompressMBps),
                        String(format: "%.0f", entry.liblz4CompressMBps),
                        String(format: "%.2f", entry.codecCompressMBps / entry.liblz4CompressMBps),
                        String(format: "%.0f", entry.codecDecompressMBps),
                        String(format: "%.0f", entry.liblz4DecompressMBps),
                        String(format: "%.2f", entry.codecDecompressMBps / entry.liblz4DecompressMBps),
                    ],
                    widths: widths
                )
            )
        }
    }

    func printSwiftLZ4() {
        print("\nLZ4: the pure-Swift block codec (FoyerSwiftLZ4) beside liblz4, same inputs and block, MB/s")
        let widths = [8, 10, 12, 12, 7, 12, 12, 7]
        print(
            BenchTable.row(
                ["bytes", "→ bytes", "swift comp", "liblz4 comp", "ratio", "swift dec", "liblz4 dec", "ratio"],
                widths: widths
            )
        )
        for entry in lz4 {
            print(
                BenchTable.row(
                    [
                        "\(entry.payloadBytes)", "\(entry.swiftCompressedBytes)",
                        String(format: "%.0f", entry.swiftCompressMBps),
                        String(format: "%.0f", entry.liblz4CompressMBps),
                        String(format: "%.2f", entry.swiftCompressMBps / entry.liblz4CompressMBps),
                        String(format: "%.0f", entry.swiftDecompressMBps),
                        String(format: "%.0f", entry.liblz4DecompressMBps),
                        String(format: "%.2f", entry.swiftDecompressMBps / entry.liblz4DecompressMBps),
                    ],
                    widths: widths
                )
            )
        }
    }

    func printMessageMix() {
        print("\nBytes on the wire per message (frame header included), without and with LZ4")
        let widths = [26, 10, 10, 7]
        print(BenchTable.row(["message", "plain", "LZ4", "saved"], widths: widths))
        for entry in messageMix {
            print(
                BenchTable.row(
                    [
                        entry.message, "\(entry.plainBytes)", "\(entry.compressedBytes)",
                        String(format: "%.0f%%", entry.saved * 100),
                    ],
                    widths: widths
                )
            )
        }
        let plain = messageMix.map(\.plainBytes).reduce(0, +)
        let compressed = messageMix.map(\.compressedBytes).reduce(0, +)
        print(
            BenchTable.row(
                [
                    "the mix, one of each", "\(plain)", "\(compressed)",
                    String(format: "%.0f%%", (1 - Double(compressed) / Double(max(plain, 1))) * 100),
                ],
                widths: widths
            )
        )
    }

    func printStack() {
        guard let stack else { return }
        print(
            "\nEnd to end: the five executables built beside foyer-bench, on loopback, SQLite, \(stack.sizes.concurrency) calls in flight"
        )
        let widths = [22, 12, 9, 8, 10, 9, 9]
        print(BenchTable.row(["operation", "via", "ok", "failed", "per s", "p50 ms", "p99 ms"], widths: widths))
        for entry in stack.throughput {
            print(
                BenchTable.row(
                    [
                        entry.name, entry.path, "\(entry.succeeded)", "\(entry.failed)",
                        String(format: "%.0f", entry.perSecond),
                        entry.p50Milliseconds.map { String(format: "%.2f", $0) } ?? "-",
                        entry.p99Milliseconds.map { String(format: "%.2f", $0) } ?? "-",
                    ],
                    widths: widths
                )
            )
        }
        if let gateway = stack.throughput.first(where: { $0.name == "guest sign-in" && $0.path == "gateway" }),
            let identity = stack.throughput.first(where: { $0.name == "guest sign-in" && $0.path == "identity" })
        {
            print(
                String(
                    format: "guest sign-ins through the gateway run at %.2f× identity's own rate",
                    gateway.perSecond / identity.perSecond
                )
            )
        }
        printEdgeRatios(stack)
        print("")
        let operationWidths = [22, 10, 10, 24, 10]
        print(BenchTable.row(["operation", "documents", "ms", "beside", "ms"], widths: operationWidths))
        for entry in stack.operations {
            print(
                BenchTable.row(
                    [
                        entry.name, "\(entry.documents)", String(format: "%.0f", entry.milliseconds),
                        entry.comparison ?? "-",
                        entry.comparisonMilliseconds.map { String(format: "%.0f", $0) } ?? "-",
                    ],
                    widths: operationWidths
                )
            )
        }
        print("")
        let cleanupWidths = [22, 14, 10, 8, 10]
        print(
            BenchTable.row(["expired guests", "seeding (s)", "sweep (s)", "sweeps", "guests/s"], widths: cleanupWidths)
        )
        for entry in stack.cleanup {
            print(
                BenchTable.row(
                    [
                        "\(entry.guests)", String(format: "%.1f", entry.seedSeconds),
                        String(format: "%.1f", entry.sweepSeconds),
                        "\(entry.sweeps)", String(format: "%.0f", entry.guestsPerSecond),
                    ],
                    widths: cleanupWidths
                )
            )
        }
        print("")
        print(BenchTable.row(["service", "peak RSS MiB"], widths: [22, 14]))
        for entry in stack.peakMemory {
            print(BenchTable.row([entry.service, String(format: "%.1f", entry.peakMiB)], widths: [22, 14]))
        }
    }

    func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }
}

/// Where the numbers came from.
struct MachineDescription: Codable {
    var date: String
    var cores: Int
    var memoryGiB: Double
    var cpu: String

    var summary: String { "\(cpu), \(cores) cores, \(String(format: "%.0f", memoryGiB)) GiB, \(date)" }

    static func current() -> MachineDescription {
        let info = ProcessInfo.processInfo
        let cpuInfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model =
            cpuInfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" }
            ?? "unknown CPU"
        let formatter = ISO8601DateFormatter()
        return MachineDescription(
            date: formatter.string(from: Date()),
            cores: info.activeProcessorCount,
            memoryGiB: Double(info.physicalMemory) / 1_073_741_824,
            cpu: model
        )
    }
}

extension BenchReport {
    /// The HTTP edge's rates as a share of the binary edge's, measured in the same run.
    func printEdgeRatios(_ stack: StackReport) {
        func rate(_ name: String, _ path: String) -> Double? {
            stack.throughput.first { $0.name == name && $0.path == path }?.perSecond
        }
        for name in ["guest sign-in", "document put (256 B)"] {
            guard let binary = rate(name, "gateway"), let http = rate(name, "gateway HTTP"), binary > 0 else {
                continue
            }
            print(
                "\(name) through the HTTP edge runs at \(String(format: "%.2f", http / binary))× the binary edge's rate"
            )
        }
    }
}
