import Histogram
import Synchronization

/// Every request's outcome and latency, by operation and by second of the run, shared by the virtual users.
///
/// A `Mutex` guards it: a request takes it once, briefly, to count and record, which is far below what a call
/// through the gateway costs.
public final class LoadRecorder: Sendable {
    private struct Operation {
        var latencies = LatencySummary.makeHistogram()
        var errors: [String: UInt64] = [:]
        var outcomes: [String: UInt64] = [:]
    }

    private struct Second {
        var requests: UInt64 = 0
        var errors: UInt64 = 0
        /// Microseconds, two significant digits: enough for a chart, small enough to keep one per second.
        var latencies = Histogram<UInt32>(highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .two)
    }

    private struct State {
        var operations: [LoadOperation: Operation] = [:]
        var seconds: [Second] = []
        var requests: UInt64 = 0
        var errors: UInt64 = 0
        var iterations: UInt64 = 0
        var failedIterations: UInt64 = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// Counts one answered request, `latency` long, that completed `elapsed` after the start of the run.
    public func record(_ operation: LoadOperation, _ outcome: LoadOutcome, latency: Duration, elapsed: Duration) {
        let nanoseconds = latency.recordableNanoseconds
        let second = Int(max(0, elapsed.components.seconds))
        state.withLock { state in
            var stats = state.operations[operation] ?? Operation()
            _ = stats.latencies.record(nanoseconds)
            switch outcome {
            case .success: break
            case .expected(let name): stats.outcomes[name, default: 0] += 1
            case .error(let name): stats.errors[name, default: 0] += 1
            }
            state.operations[operation] = stats
            while state.seconds.count <= second { state.seconds.append(Second()) }
            state.seconds[second].requests += 1
            _ = state.seconds[second].latencies.record(max(1, nanoseconds / 1000))
            state.requests += 1
            if case .error = outcome {
                state.seconds[second].errors += 1
                state.errors += 1
            }
        }
    }

    /// Counts an iteration of the scenario that ran to its end (`completed`) or stopped at an error.
    public func iterationEnded(completed: Bool) {
        state.withLock { state in
            if completed { state.iterations += 1 } else { state.failedIterations += 1 }
        }
    }

    /// Requests answered and errors so far.
    public var counts: (requests: UInt64, errors: UInt64) {
        state.withLock { ($0.requests, $0.errors) }
    }

    /// Requests answered in second `second` of the run (0 if none).
    public func requests(inSecond second: Int) -> UInt64 {
        state.withLock { $0.seconds.indices.contains(second) ? $0.seconds[second].requests : 0 }
    }

    /// What was recorded since the start or the last take, summarised, and the recorder emptied for the next
    /// interval (requests, errors, outcomes, latencies and iterations start again from zero; the per-second
    /// timeline is kept whole). For reports per interval of a long run, such as a soak's minutes.
    ///
    /// - Parameter elapsed: the interval's length, for its rates.
    public func takeReport(plan: LoadPlan, elapsed: Duration) -> LoadReport {
        state.withLock { state in
            let report = Self.report(of: state, plan: plan, elapsed: elapsed, stopReason: nil)
            state.operations = [:]
            state.requests = 0
            state.errors = 0
            state.iterations = 0
            state.failedIterations = 0
            return report
        }
    }

    /// What was recorded, summarised.
    public func report(plan: LoadPlan, elapsed: Duration, stopReason: String?) -> LoadReport {
        state.withLock { Self.report(of: $0, plan: plan, elapsed: elapsed, stopReason: stopReason) }
    }

    private static func report(of state: State, plan: LoadPlan, elapsed: Duration, stopReason: String?) -> LoadReport {
        LoadReport(
            plan: plan,
            elapsed: elapsed,
            iterations: state.iterations,
            failedIterations: state.failedIterations,
            operations: state.operations.keys.sorted().map { operation in
                let stats = state.operations[operation] ?? Operation()
                return LoadReport.OperationSummary(
                    operation: operation,
                    count: stats.latencies.totalCount,
                    errors: stats.errors,
                    outcomes: stats.outcomes,
                    latency: LatencySummary(stats.latencies)
                )
            },
            timeline: state.seconds.enumerated().map { second, stats in
                LoadReport.SecondSummary(
                    second: second,
                    requests: stats.requests,
                    errors: stats.errors,
                    p50Nanoseconds: stats.requests > 0 ? stats.latencies.valueAtPercentile(50) * 1000 : 0,
                    p99Nanoseconds: stats.requests > 0 ? stats.latencies.valueAtPercentile(99) * 1000 : 0
                )
            },
            stopReason: stopReason
        )
    }
}
