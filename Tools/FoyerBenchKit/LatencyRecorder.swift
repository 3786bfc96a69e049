import Histogram
public import NIOCore

/// Calls completed and their latencies (nanoseconds, in an HdrHistogram) for one benchmark row.
public struct LatencyRecorder: Sendable {
    var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)

    /// An empty recorder.
    public init() {}

    /// Records one call that started at `start` and ended at `now`.
    public mutating func record(since start: NIODeadline, now: NIODeadline = .now()) {
        _ = histogram.record(UInt64(max((now - start).nanoseconds, 1)))
    }

    /// Adds every call `other` recorded.
    public mutating func merge(_ other: LatencyRecorder) {
        histogram.add(other.histogram)
    }

    /// How many calls were recorded.
    public var count: UInt64 { histogram.totalCount }

    /// The latency at `percentile` (0–100), in microseconds.
    public func microseconds(atPercentile percentile: Double) -> Double {
        Double(histogram.valueAtPercentile(percentile)) / 1000
    }
}
