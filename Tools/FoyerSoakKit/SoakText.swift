import FoyerLoad

/// The soak run as text for a terminal: a block per minute, and the summary at the end.
public enum SoakText {
    /// One minute: totals, errors and outcomes by status, p50/p99 per scenario and operation, each service's RSS
    /// (the lowest sampled in the minute, and the peak) and open file descriptors.
    public static func minute(_ minute: SoakMinute, label: String? = nil) -> String {
        var lines = [
            "\(label ?? "minute \(minute.minute)"): \(minute.requests) requests in "
                + "\(LoadReport.decimal(minute.seconds, places: 1)) s "
                + "(\(LoadReport.decimal(minute.requestsPerSecond, places: 1))/s); errors: \(listing(minute.errors)); "
                + "expected outcomes: \(listing(minute.outcomes))"
        ]
        let rows = minute.operations.map { operation in
            [
                operation.name, "\(operation.requests)",
                "p50 " + LoadReport.decimal(operation.p50Milliseconds, places: 2),
                "p99 " + LoadReport.decimal(operation.p99Milliseconds, places: 2) + " ms",
            ]
        }
        lines += LoadReport.aligned(rows).map { "  " + $0 }
        let services = minute.services.keys.sorted().map { service in
            let figures = minute.services[service]
            let text = figures.map {
                "\(SoakVerdict.mebibytes($0.residentBytes)) (peak \(SoakVerdict.mebibytes($0.residentPeakBytes))), "
                    + "\($0.openFiles) fds"
            }
            return "\(service) \(text ?? "not running")"
        }
        if !services.isEmpty { lines.append("  RSS: " + services.joined(separator: "; ")) }
        for reason in minute.stopReasons { lines.append("  stopped early: \(reason)") }
        if minute.failedIterations > 0 { lines.append("  iterations cut short: \(minute.failedIterations)") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The end: requests and errors over all minutes, each service's RSS at the baseline and at its largest, the
    /// verdict with its reasons.
    public static func summary(minutes: [SoakMinute], verdict: SoakVerdict) -> String {
        let requests = minutes.reduce(0) { $0 + $1.requests }
        let seconds = minutes.reduce(0) { $0 + $1.seconds }
        var errors: [String: UInt64] = [:]
        for minute in minutes { errors.merge(minute.errors, uniquingKeysWith: +) }
        var lines = [
            "soak: \(minutes.count) minutes, \(requests) requests "
                + "(\(LoadReport.decimal(seconds > 0 ? Double(requests) / seconds : 0, places: 1))/s), "
                + "errors: \(listing(errors))"
        ]
        lines += operations(minutes)
        for service in verdict.residentGrowth.keys.sorted() {
            let growth = verdict.residentGrowth[service] ?? 0
            lines.append(
                "  \(service): RSS growth after minute \(SoakVerdict.baselineMinute): \(SoakVerdict.percent(growth))"
            )
        }
        for note in verdict.notes { lines.append("note: \(note)") }
        for failure in verdict.failures { lines.append("FAIL: \(failure)") }
        lines.append(verdict.passed ? "verdict: pass" : "verdict: FAIL")
        return lines.joined(separator: "\n") + "\n"
    }

    /// One line per operation over the whole run: requests and errors in all, the median over the minutes of each
    /// minute's p50, and the largest p99 of any minute (the minutes keep percentiles, not every latency, so these are
    /// the honest merges: a median of medians, and a bound on the run's p99).
    public static func operations(_ minutes: [SoakMinute]) -> [String] {
        var byName: [String: [SoakMinute.Operation]] = [:]
        for minute in minutes {
            for operation in minute.operations { byName[operation.name, default: []].append(operation) }
        }
        guard !byName.isEmpty else { return [] }
        let width = max(byName.keys.map(\.count).max() ?? 0, "operation".count)
        func padded(_ text: String) -> String { text.padding(toLength: width, withPad: " ", startingAt: 0) }
        var lines = ["  \(padded("operation"))  requests  errors  p50 (median of minutes)  p99 (largest minute)"]
        for name in byName.keys.sorted() {
            let operations = byName[name] ?? []
            let p50s = operations.map(\.p50Milliseconds).sorted()
            let median =
                p50s.count % 2 == 1 ? p50s[p50s.count / 2] : (p50s[p50s.count / 2 - 1] + p50s[p50s.count / 2]) / 2
            let p99 = operations.map(\.p99Milliseconds).max() ?? 0
            let requests = operations.reduce(0) { $0 + $1.requests }
            let errors = operations.reduce(0) { $0 + $1.errors }
            lines.append(
                "  \(padded(name))  \(String(requests).leftPadded(8))  \(String(errors).leftPadded(6))  "
                    + "\((LoadReport.decimal(median, places: 1) + " ms").leftPadded(23))  "
                    + (LoadReport.decimal(p99, places: 1) + " ms").leftPadded(20)
            )
        }
        return lines
    }

    /// `status count, …` sorted by status, or `none`.
    static func listing(_ counts: [String: UInt64]) -> String {
        counts.isEmpty
            ? "none" : counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
