/// The result of a load run: what was asked, and per operation how many requests, their outcomes, errors and
/// latency, plus a per-second timeline for the chart.
public struct LoadReport: Sendable {
    /// One operation's requests.
    public struct OperationSummary: Sendable {
        public var operation: LoadOperation
        /// Requests answered (successes, expected refusals and errors).
        public var count: UInt64
        /// Errors by status name.
        public var errors: [String: UInt64]
        /// Expected refusals by status name (not errors).
        public var outcomes: [String: UInt64]
        public var latency: LatencySummary

        public var errorCount: UInt64 { errors.values.reduce(0, +) }
        public var outcomeCount: UInt64 { outcomes.values.reduce(0, +) }
    }

    /// One second of the run.
    public struct SecondSummary: Sendable, Equatable {
        /// Seconds since the start.
        public var second: Int
        public var requests: UInt64
        public var errors: UInt64
        public var p50Nanoseconds: UInt64
        public var p99Nanoseconds: UInt64
    }

    public var plan: LoadPlan
    /// From the start to the last answer.
    public var elapsed: Duration
    /// Iterations of the scenario that ran to their end.
    public var iterations: UInt64
    /// Iterations an error cut short.
    public var failedIterations: UInt64
    /// By operation name.
    public var operations: [OperationSummary]
    public var timeline: [SecondSummary]
    /// Why the run stopped before its bound, if it did.
    public var stopReason: String?

    /// `elapsed` in seconds.
    public var elapsedSeconds: Double { elapsed.secondsValue }

    public var requests: UInt64 { operations.reduce(0) { $0 + $1.count } }
    public var errors: UInt64 { operations.reduce(0) { $0 + $1.errorCount } }
    public var outcomes: UInt64 { operations.reduce(0) { $0 + $1.outcomeCount } }

    /// Requests answered per second over the whole run.
    public var throughput: Double { Self.rate(requests, elapsed) }

    /// Requests per second of `count` over `elapsed`.
    public static func rate(_ count: UInt64, _ elapsed: Duration) -> Double {
        let seconds = elapsed.secondsValue
        return seconds > 0 ? Double(count) / seconds : 0
    }

    /// Errors of every operation, by status name.
    public var errorsByStatus: [(status: String, count: UInt64)] { Self.total(operations.map(\.errors)) }

    /// Expected refusals of every operation, by status name.
    public var outcomesByStatus: [(status: String, count: UInt64)] { Self.total(operations.map(\.outcomes)) }

    private static func total(_ counts: [[String: UInt64]]) -> [(status: String, count: UInt64)] {
        var totals: [String: UInt64] = [:]
        for byStatus in counts {
            for (status, count) in byStatus { totals[status, default: 0] += count }
        }
        return totals.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Whether the run is a success: it ran to its bound with no error.
    public var isClean: Bool { errors == 0 && failedIterations == 0 && stopReason == nil }
}
