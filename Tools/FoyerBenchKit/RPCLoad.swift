import NIOCore

/// The small-call load every RPC comparison runs: a 32-byte body, one connection, 1, 64 and 256 calls in flight.
public enum RPCLoad {
    /// The in-flight levels, one table row each.
    public static let inFlightLevels = [1, 64, 256]
    /// Bytes in each call's request and response body.
    public static let payloadByteCount = 32

    /// Runs `call` from `inFlight` tasks in a loop for `seconds`, recording each call's latency.
    public static func drive(
        inFlight: Int,
        seconds: Double,
        _ call: @escaping @Sendable () async throws -> Void
    ) async throws -> LatencyRecorder {
        let end = NIODeadline.now() + .nanoseconds(Int64(seconds * 1e9))
        return try await withThrowingTaskGroup(of: LatencyRecorder.self) { group in
            for _ in 0..<inFlight {
                group.addTask {
                    var recorder = LatencyRecorder()
                    while true {
                        let start = NIODeadline.now()
                        guard start < end else { break }
                        try await call()
                        recorder.record(since: start)
                    }
                    return recorder
                }
            }
            var total = LatencyRecorder()
            for try await recorder in group { total.merge(recorder) }
            return total
        }
    }
}
