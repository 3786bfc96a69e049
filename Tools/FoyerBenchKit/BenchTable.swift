import Foundation

/// Fixed-width text tables, as the benchmark tools print them.
public enum BenchTable {
    /// `cells` right-aligned in columns of `widths`, two spaces apart.
    public static func row(_ cells: [String], widths: [Int]) -> String {
        zip(cells, widths).map { cell, width in
            String(repeating: " ", count: max(0, width - cell.count)) + cell
        }.joined(separator: "  ")
    }

    /// The RPC table: one line per row, grouped by in-flight level, with each system's throughput against the
    /// raw SwiftNIO echo measured in the same run (`-` when `rows` has none at that level).
    public static func rpcLines(_ rows: [RPCRow]) -> [String] {
        let widths = [9, 13, 11, 9, 9, 11, 11]
        var lines = [
            row(["in flight", "system", "calls/s", "p50 µs", "p99 µs", "wire B/call", "vs raw echo"], widths: widths)
        ]
        for level in Set(rows.map(\.inFlight)).sorted() {
            let raw = rows.first { $0.system == "raw-nio-echo" && $0.inFlight == level }
            for entry in rows where entry.inFlight == level {
                let ratio = raw.map { String(format: "%.2f×", entry.callsPerSecond / $0.callsPerSecond) } ?? "-"
                lines.append(
                    row(
                        [
                            "\(level)", entry.system, String(format: "%.0f", entry.callsPerSecond),
                            String(format: "%.0f", entry.p50Microseconds),
                            String(format: "%.0f", entry.p99Microseconds),
                            "\(entry.bytesOnWirePerCall)", ratio,
                        ],
                        widths: widths
                    )
                )
            }
        }
        return lines
    }
}
