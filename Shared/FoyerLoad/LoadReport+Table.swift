extension LoadReport {
    /// The columns of the per-operation table, as `rows` fills them.
    public static let columns = [
        "operation", "requests", "per second", "errors", "outcomes", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms",
        "max ms",
    ]

    /// One row per operation, then the total, in the order of `columns`.
    public var rows: [[String]] {
        let seconds = elapsed
        var rows = operations.map { summary in
            [
                summary.operation.name, "\(summary.count)", Self.decimal(Self.rate(summary.count, seconds), places: 1),
                "\(summary.errorCount)", "\(summary.outcomeCount)",
                Self.milliseconds(summary.latency.p50), Self.milliseconds(summary.latency.p90),
                Self.milliseconds(summary.latency.p99), Self.milliseconds(summary.latency.p999),
                Self.milliseconds(summary.latency.max),
            ]
        }
        rows.append([
            "all", "\(requests)", Self.decimal(throughput, places: 1), "\(errors)", "\(outcomes)", "", "", "", "", "",
        ])
        return rows
    }

    /// The first line: the scenario and how it ran.
    public var headline: String {
        var bounds: [String] = []
        if let duration = plan.duration { bounds.append("for \(LoadDuration.text(duration))") }
        if let requests = plan.requests { bounds.append("up to \(requests) requests") }
        if let rate = plan.rate { bounds.append("at \(Self.decimal(rate, places: 1)) requests/s") }
        return "foyer load \(plan.scenario.rawValue): \(plan.concurrency) virtual users over \(plan.connections) "
            + "connections, \(bounds.joined(separator: ", "))"
    }

    /// The report as text for a terminal: headline, totals, the table, errors and outcomes by status, notes.
    public var table: String {
        var lines = [headline]
        lines.append(
            "\(requests) requests in \(Self.decimal(elapsed.secondsValue, places: 1)) s "
                + "(\(Self.decimal(throughput, places: 1))/s), \(iterations) iterations completed, "
                + "\(failedIterations) cut short, \(errors) errors, \(outcomes) expected outcomes"
        )
        lines.append("")
        lines += Self.aligned([Self.columns] + rows)
        lines.append("")
        lines.append("errors by status: " + Self.listing(errorsByStatus))
        lines.append("expected outcomes: " + Self.listing(outcomesByStatus))
        for note in plan.notes { lines.append("note: \(note)") }
        if let stopReason { lines.append("stopped early: \(stopReason)") }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func listing(_ counts: [(status: String, count: UInt64)]) -> String {
        counts.isEmpty ? "none" : counts.map { "\($0.status) \($0.count)" }.joined(separator: ", ")
    }

    /// Columns padded to their widest cell: the first left-aligned, the others right-aligned; no trailing spaces.
    /// Also for other reports of load runs (the soak's minutes).
    public static func aligned(_ table: [[String]]) -> [String] {
        let widths = table.reduce(into: [Int]()) { widths, row in
            for (column, cell) in row.enumerated() {
                if column < widths.count {
                    widths[column] = max(widths[column], cell.count)
                } else {
                    widths.append(cell.count)
                }
            }
        }
        return table.map { row in
            row.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return column == 0 ? cell + padding : padding + cell
            }.joined(separator: "  ")
        }.map { line in String(line.reversed().drop { $0 == " " }.reversed()) }
    }

    /// Nanoseconds as milliseconds with two decimals.
    public static func milliseconds(_ nanoseconds: UInt64) -> String {
        decimal(Double(nanoseconds) / 1_000_000, places: 2)
    }

    /// `value` rounded to `places` decimals (0 to 6), without exponent.
    public static func decimal(_ value: Double, places: Int) -> String {
        guard value.isFinite else { return "0" }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = UInt64(max(0, (value * scale).rounded()))
        let whole = scaled / UInt64(scale)
        guard places > 0 else { return "\(whole)" }
        let fraction = String(scaled % UInt64(scale))
        return "\(whole)." + String(repeating: "0", count: places - fraction.count) + fraction
    }
}
