/// Bytes on the wire per call, measured by relaying a run of calls through a ``ByteCountingRelay``.
public struct WireMeasurement: Codable, Sendable {
    /// Calls made while counting.
    public var calls: Int
    /// In flight during the count.
    public var inFlight: Int
    /// TCP payload bytes forwarded in both directions during those calls.
    public var bytes: Int

    /// Bytes per call, rounded to the nearest byte.
    public var bytesPerCall: Int { calls > 0 ? Int((Double(bytes) / Double(calls)).rounded()) : 0 }

    /// How the number was obtained, for the table's footnote and the JSON report.
    public var method: String {
        "measured: \(calls) calls at \(inFlight) in flight through a byte-counting loopback TCP relay; "
            + "\(bytes) TCP payload bytes both ways / \(calls) calls = \(bytesPerCall) B/call "
            + "(HTTP/2 frames with HPACK headers, gRPC length prefixes, protobuf, WINDOW_UPDATE and PING frames; "
            + "connection setup and warm-up calls excluded; IP and TCP headers not counted)"
    }
}
