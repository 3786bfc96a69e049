public import FoyerLoad

/// What one minute of a soak run did: requests, errors and expected refusals by status, latency per scenario and
/// operation, and each service's memory and open files at the minute's end.
public struct SoakMinute: Codable, Equatable, Sendable {
    /// One operation of one scenario in this minute.
    public struct Operation: Codable, Equatable, Sendable {
        /// `scenario/operation`, e.g. `read-write/put`.
        public var name: String
        public var requests: UInt64
        public var errors: UInt64
        public var p50Milliseconds: Double
        public var p99Milliseconds: Double

        public init(name: String, requests: UInt64, errors: UInt64, p50Milliseconds: Double, p99Milliseconds: Double) {
            self.name = name
            self.requests = requests
            self.errors = errors
            self.p50Milliseconds = p50Milliseconds
            self.p99Milliseconds = p99Milliseconds
        }
    }

    /// 1 for the first minute.
    public var minute: Int
    /// How long the minute's runs took, in seconds (a little more than a minute: iterations under way finish).
    public var seconds: Double
    public var requests: UInt64
    /// Errors by status name: requests that failed unexpectedly.
    public var errors: [String: UInt64]
    /// Expected refusals by status name (a guest's write over its quota): outcomes, not errors.
    public var outcomes: [String: UInt64]
    /// Iterations of a scenario an error cut short.
    public var failedIterations: UInt64
    /// Why a scenario's run stopped before its bound, as `scenario: reason`.
    public var stopReasons: [String]
    /// Sorted by name.
    public var operations: [Operation]
    /// By service name; a service that no longer runs has no figures.
    public var services: [String: ProcessFigures]

    public init(
        minute: Int,
        seconds: Double,
        requests: UInt64,
        errors: [String: UInt64],
        outcomes: [String: UInt64],
        failedIterations: UInt64,
        stopReasons: [String],
        operations: [Operation],
        services: [String: ProcessFigures]
    ) {
        self.minute = minute
        self.seconds = seconds
        self.requests = requests
        self.errors = errors
        self.outcomes = outcomes
        self.failedIterations = failedIterations
        self.stopReasons = stopReasons
        self.operations = operations
        self.services = services
    }

    /// The minute made of the reports of the scenarios that ran side by side during it, and the services' figures
    /// sampled at its end.
    public init(minute: Int, reports: [LoadReport], services: [String: ProcessFigures]) {
        var errors: [String: UInt64] = [:]
        var outcomes: [String: UInt64] = [:]
        var operations: [Operation] = []
        for report in reports {
            for (status, count) in report.errorsByStatus { errors[status, default: 0] += count }
            for (status, count) in report.outcomesByStatus { outcomes[status, default: 0] += count }
            for summary in report.operations {
                operations.append(
                    Operation(
                        name: "\(report.plan.scenario.rawValue)/\(summary.operation.name)",
                        requests: summary.count,
                        errors: summary.errorCount,
                        p50Milliseconds: Double(summary.latency.p50) / 1_000_000,
                        p99Milliseconds: Double(summary.latency.p99) / 1_000_000
                    )
                )
            }
        }
        self.init(
            minute: minute,
            seconds: reports.map(\.elapsedSeconds).max() ?? 0,
            requests: reports.reduce(0) { $0 + $1.requests },
            errors: errors,
            outcomes: outcomes,
            failedIterations: reports.reduce(0) { $0 + $1.failedIterations },
            stopReasons: reports.compactMap { report in
                report.stopReason.map { "\(report.plan.scenario.rawValue): \($0)" }
            },
            operations: operations.sorted { $0.name < $1.name },
            services: services
        )
    }

    /// Errors of every status together.
    public var errorCount: UInt64 { errors.values.reduce(0, +) }

    /// Whether the minute had no unexpected error: no error, no iteration cut short, no run stopped early.
    public var isClean: Bool { errorCount == 0 && failedIterations == 0 && stopReasons.isEmpty }

    /// Requests answered per second.
    public var requestsPerSecond: Double { seconds > 0 ? Double(requests) / seconds : 0 }
}
