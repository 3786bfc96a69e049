public import Foundation

/// Everything a soak run measured, as `foyer-soak --json FILE` writes it.
public struct SoakResult: Codable, Equatable, Sendable {
    /// The unthrottled capacity probe, as one "minute" numbered 0.
    public var probe: SoakMinute
    /// The fraction of the probe's throughput the soak ran at (0.7).
    public var loadFraction: Double
    /// Requests per second asked of each scenario during the soak, by scenario name.
    public var rates: [String: Double]
    /// Seconds per minute (60, unless shortened for tests).
    public var minuteSeconds: Double
    public var minutes: [SoakMinute]
    public var verdict: SoakVerdict

    public init(
        probe: SoakMinute,
        loadFraction: Double,
        rates: [String: Double],
        minuteSeconds: Double,
        minutes: [SoakMinute],
        verdict: SoakVerdict
    ) {
        self.probe = probe
        self.loadFraction = loadFraction
        self.rates = rates
        self.minuteSeconds = minuteSeconds
        self.minutes = minutes
        self.verdict = verdict
    }

    /// The result as pretty-printed JSON with sorted keys.
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }
}
