import Foundation
import FoyerBenchKit

/// The ratios of the last accepted run, kept in the repository (`Benchmarks/baseline.json`) with the commit they were
/// measured on, and printed beside this run's: a ratio more than 25% below its baseline is flagged, so a loss shows
/// in the run that causes it.
///
/// Only ratios are kept, each a Foyer number over the comparison measured beside it in the same run (the raw echo,
/// liblz4, the binary edge): the machine's own speed moves too much between runs for raw rates to compare.
struct BenchBaseline: Codable {
    var commit: String
    var date: String
    var ratios: [String: Double]

    static let defaultPath = "Benchmarks/baseline.json"
    /// A ratio below this share of its baseline is flagged.
    static let flagBelow = 0.75

    static func load(_ path: String) throws -> BenchBaseline? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try JSONDecoder().decode(BenchBaseline.self, from: data)
    }

    /// This run's ratios as the new baseline, with the commit checked out (`git rev-parse --short HEAD`).
    static func accepting(_ report: BenchReport) -> BenchBaseline {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return BenchBaseline(
            commit: currentCommit() ?? "unknown",
            date: formatter.string(from: Date()),
            ratios: Dictionary(report.ratios().map { ($0.name, ($0.value * 1_000).rounded() / 1_000) }) { $1 }
        )
    }

    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try (encoder.encode(self) + Data("\n".utf8)).write(to: URL(fileURLWithPath: path))
    }

    private static func currentCommit() -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "rev-parse", "--short", "HEAD"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        process.waitUntilExit()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return process.terminationStatus == 0 ? text.trimmingCharacters(in: .whitespacesAndNewlines) : nil
    }
}

extension BenchReport {
    /// The ratios within this run that the baseline keeps, in the order the tables print them.
    func ratios() -> [(name: String, value: Double)] {
        var ratios: [(String, Double)] = []
        func add(_ name: String, _ numerator: Double?, _ denominator: Double?) {
            guard let numerator, let denominator, denominator > 0 else { return }
            ratios.append((name, numerator / denominator))
        }
        for level in Set(rpc.map(\.inFlight)).sorted() {
            let row = { (system: String) in self.rpc.first { $0.system == system && $0.inFlight == level } }
            add("rpc \(level) in flight / raw echo", row("foyer")?.callsPerSecond, row("raw-nio-echo")?.callsPerSecond)
        }
        for row in lz4 {
            let size = "\(row.payloadBytes) B"
            add("lz4 codec compress \(size) / liblz4", row.codecCompressMBps, row.liblz4CompressMBps)
            add("lz4 codec decompress \(size) / liblz4", row.codecDecompressMBps, row.liblz4DecompressMBps)
            add("lz4 swift compress \(size) / liblz4", row.swiftCompressMBps, row.liblz4CompressMBps)
            add("lz4 swift decompress \(size) / liblz4", row.swiftDecompressMBps, row.liblz4DecompressMBps)
        }
        for stack in stacks {
            func rate(_ name: String, _ path: String) -> Double? {
                stack.throughput.first { $0.name == name && $0.path == path }?.perSecond
            }
            let engine = stack.engine.rawValue
            add(
                "\(engine) sign-in gateway / identity",
                rate("guest sign-in", "gateway"),
                rate("guest sign-in", "identity")
            )
            add(
                "\(engine) sign-in HTTP / binary",
                rate("guest sign-in", "gateway HTTP"),
                rate("guest sign-in", "gateway")
            )
            add(
                "\(engine) put HTTP / binary",
                rate("document put (256 B)", "gateway HTTP"),
                rate("document put (256 B)", "gateway")
            )
            for anchor in stack.anchors {
                add("\(engine) \(anchor.row) / pgbench", rate(anchor.row, anchor.path), anchor.transactionsPerSecond)
            }
            add(
                "\(engine) put gateway / user-data",
                rate("document put (256 B)", "gateway"),
                rate("document put (256 B)", "user-data")
            )
        }
        return ratios
    }

    /// This run's ratios beside `baseline`'s, each flagged when more than 25% below it; returns how many were.
    @discardableResult
    func printBaseline(_ baseline: BenchBaseline?, path: String) -> Int {
        guard let baseline else {
            print("\nNo baseline at \(path): `foyer-bench --write-baseline` keeps this run's ratios as one")
            return 0
        }
        print(
            "\nRatios against the baseline (\(path): commit \(baseline.commit), \(baseline.date)); flagged: below 0.75x it"
        )
        let widths = [44, 10, 10, 9, 8]
        print(BenchTable.row(["ratio", "this run", "baseline", "change", ""], widths: widths))
        var flagged = 0
        for (name, value) in ratios() {
            guard let base = baseline.ratios[name], base > 0 else {
                print(BenchTable.row([name, String(format: "%.3f", value), "-", "", ""], widths: widths))
                continue
            }
            let change = value / base
            let flag = change < BenchBaseline.flagBelow
            if flag { flagged += 1 }
            print(
                BenchTable.row(
                    [
                        name, String(format: "%.3f", value), String(format: "%.3f", base),
                        String(format: "%+.0f%%", (change - 1) * 100), flag ? "FLAGGED" : "",
                    ],
                    widths: widths
                )
            )
        }
        print("\(flagged) ratio(s) more than 25% below the baseline")
        return flagged
    }
}
