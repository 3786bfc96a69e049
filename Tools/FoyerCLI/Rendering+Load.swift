import FoyerLoad

extension Render {
    /// The load report as one JSON object; durations and latencies in milliseconds.
    static func load(_ report: LoadReport, chartPath: String?) -> JSONValue {
        let plan = report.plan
        return .object([
            ("scenario", .string(plan.scenario.rawValue)),
            ("concurrency", .uint(UInt64(plan.concurrency))),
            ("connections", .uint(UInt64(plan.connections))),
            ("rate", plan.rate.map { number($0, places: 3) } ?? .null),
            ("duration", plan.duration.map { .string(LoadDuration.text($0)) } ?? .null),
            ("requestLimit", plan.requests.map { .uint(UInt64($0)) } ?? .null),
            ("elapsedMs", number(report.elapsedSeconds * 1000, places: 1)),
            ("requests", .uint(report.requests)),
            ("throughput", number(report.throughput, places: 2)),
            ("iterations", .uint(report.iterations)),
            ("failedIterations", .uint(report.failedIterations)),
            ("errors", .uint(report.errors)),
            ("outcomes", .uint(report.outcomes)),
            ("operations", .array(report.operations.map { operation($0, elapsed: report.elapsed) })),
            ("errorsByStatus", .object(report.errorsByStatus.map { ($0.status, .uint($0.count)) })),
            ("outcomesByStatus", .object(report.outcomesByStatus.map { ($0.status, .uint($0.count)) })),
            ("timeline", .array(report.timeline.map(second))),
            ("notes", .array(plan.notes.map(JSONValue.string))),
            ("stoppedEarly", .optional(report.stopReason)),
            ("chart", .optional(chartPath)),
        ])
    }

    private static func operation(_ summary: LoadReport.OperationSummary, elapsed: Duration) -> JSONValue {
        .object([
            ("operation", .string(summary.operation.name)),
            ("requests", .uint(summary.count)),
            ("throughput", number(LoadReport.rate(summary.count, elapsed), places: 2)),
            ("errors", .object(summary.errors.sorted { $0.key < $1.key }.map { ($0.key, .uint($0.value)) })),
            ("outcomes", .object(summary.outcomes.sorted { $0.key < $1.key }.map { ($0.key, .uint($0.value)) })),
            (
                "latencyMs",
                .object([
                    ("p50", milliseconds(summary.latency.p50)),
                    ("p90", milliseconds(summary.latency.p90)),
                    ("p99", milliseconds(summary.latency.p99)),
                    ("p99.9", milliseconds(summary.latency.p999)),
                    ("max", milliseconds(summary.latency.max)),
                    ("mean", number(summary.latency.mean / 1e6, places: 3)),
                ])
            ),
        ])
    }

    private static func second(_ second: LoadReport.SecondSummary) -> JSONValue {
        .object([
            ("second", .uint(UInt64(second.second))),
            ("requests", .uint(second.requests)),
            ("errors", .uint(second.errors)),
            ("p50Ms", milliseconds(second.p50Nanoseconds)),
            ("p99Ms", milliseconds(second.p99Nanoseconds)),
        ])
    }

    private static func milliseconds(_ nanoseconds: UInt64) -> JSONValue {
        number(Double(nanoseconds) / 1e6, places: 3)
    }

    private static func number(_ value: Double, places: Int) -> JSONValue {
        .raw(LoadReport.decimal(value, places: places))
    }
}
