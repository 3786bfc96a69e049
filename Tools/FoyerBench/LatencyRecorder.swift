import Histogram
import NIOCore

/// Calls completed and their latencies (nanoseconds, in an HdrHistogram) for one benchmark row.
struct LatencyRecorder: Sendable {
    var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)

    mutating func record(since start: NIODeadline, now: NIODeadline = .now()) {
        _ = histogram.record(UInt64(max((now - start).nanoseconds, 1)))
    }

    mutating func merge(_ other: LatencyRecorder) {
        histogram.add(other.histogram)
    }

    var count: UInt64 { histogram.totalCount }
    func microseconds(atPercentile percentile: Double) -> Double {
        Double(histogram.valueAtPercentile(percentile)) / 1000
    }
}

/// One measured configuration: what, how many in flight, calls per second, latency percentiles.
struct RPCRow: Codable, Sendable {
    var system: String
    var inFlight: Int
    var callsPerSecond: Double
    var p50Microseconds: Double
    var p99Microseconds: Double
    var bytesOnWirePerCall: Int

    init(system: String, inFlight: Int, seconds: Double, latencies: LatencyRecorder, bytesOnWirePerCall: Int) {
        self.system = system
        self.inFlight = inFlight
        self.callsPerSecond = Double(latencies.count) / seconds
        self.p50Microseconds = latencies.microseconds(atPercentile: 50)
        self.p99Microseconds = latencies.microseconds(atPercentile: 99)
        self.bytesOnWirePerCall = bytesOnWirePerCall
    }
}
