/// One measured configuration: what, how many in flight, calls per second, latency percentiles.
///
/// The JSON form is what `foyer-bench --json` and `grpc-echo-bench --json` write, so reports from both merge.
public struct RPCRow: Codable, Sendable {
    public var system: String
    public var inFlight: Int
    public var callsPerSecond: Double
    public var p50Microseconds: Double
    public var p99Microseconds: Double
    public var bytesOnWirePerCall: Int

    /// A row for `latencies` gathered over `seconds`.
    public init(system: String, inFlight: Int, seconds: Double, latencies: LatencyRecorder, bytesOnWirePerCall: Int) {
        self.system = system
        self.inFlight = inFlight
        self.callsPerSecond = Double(latencies.count) / seconds
        self.p50Microseconds = latencies.microseconds(atPercentile: 50)
        self.p99Microseconds = latencies.microseconds(atPercentile: 99)
        self.bytesOnWirePerCall = bytesOnWirePerCall
    }
}
