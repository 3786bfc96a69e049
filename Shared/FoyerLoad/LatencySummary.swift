public import Histogram

/// The latency percentiles the report shows, in nanoseconds (0 when nothing was recorded).
public struct LatencySummary: Equatable, Sendable {
    public var p50: UInt64
    public var p90: UInt64
    public var p99: UInt64
    public var p999: UInt64
    public var max: UInt64
    public var mean: Double

    public init(p50: UInt64, p90: UInt64, p99: UInt64, p999: UInt64, max: UInt64, mean: Double) {
        self.p50 = p50
        self.p90 = p90
        self.p99 = p99
        self.p999 = p999
        self.max = max
        self.mean = mean
    }

    /// The percentiles of `histogram`, whose values are nanoseconds.
    public init<Count: FixedWidthInteger & Codable & Sendable>(_ histogram: Histogram<Count>) {
        guard histogram.totalCount > 0 else {
            self.init(p50: 0, p90: 0, p99: 0, p999: 0, max: 0, mean: 0)
            return
        }
        self.init(
            p50: histogram.valueAtPercentile(50),
            p90: histogram.valueAtPercentile(90),
            p99: histogram.valueAtPercentile(99),
            p999: histogram.valueAtPercentile(99.9),
            max: histogram.max,
            mean: histogram.mean
        )
    }

    /// An empty histogram for request latencies in nanoseconds: up to a minute, three significant digits.
    public static func makeHistogram() -> Histogram<UInt64> {
        Histogram(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
    }
}
