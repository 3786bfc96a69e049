import Foundation
import FoyerBenchKit

/// Everything one `foyer-bench` run measured, printable as tables and writable as JSON.
struct BenchReport: Codable {
    var machine: MachineDescription
    var rpc: [RPCRow] = []
    var lz4: [LZ4Benchmark.Row] = []
    var messageMix: [MessageMix.Row] = []
    var passwordHashes: [PasswordHashBenchmark.Row] = []
    /// The end-to-end rows, once per engine (SQLite first).
    var stacks: [StackReport] = []
    /// The PostgreSQL server the rows ran on (version, fsync, synchronous_commit), when they ran on one.
    var postgres: String?
    /// The targets, judged on the rows above (BenchReport+Targets.swift).
    var targets: [BenchTarget] = []

    func printRPC() {
        print("RPC small-call round trips over loopback (one connection, 32-byte echo)")
        BenchTable.rpcLines(rpc).forEach { print($0) }
        print("")
    }

    func printPasswordHashes() {
        print("\nPassword hashes as identity stores them, each at the cost it uses: hashes a second")
        let widths = [10, 20, 8, 10, 11, 14]
        print(BenchTable.row(["hash", "cost", "MiB", "one core", "all cores", "vs scrypt"], widths: widths))
        let scrypt = passwordHashes.first { $0.algorithm == "scrypt" }?.hashesPerSecondOneCore
        for entry in passwordHashes {
            print(
                BenchTable.row(
                    [
                        entry.algorithm, entry.parameters, String(format: "%.0f", entry.memoryMiB),
                        String(format: "%.1f", entry.hashesPerSecondOneCore),
                        String(format: "%.1f", entry.hashesPerSecondAllCores) + " (\(entry.cores))",
                        scrypt.map { String(format: "%.2fx", entry.hashesPerSecondOneCore / $0) } ?? "-",
                    ],
                    widths: widths
                )
            )
        }
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
