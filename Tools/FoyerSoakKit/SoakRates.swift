public import FoyerLoad

/// The soak's rate per scenario, from the capacity probe.
public enum SoakRates {
    /// The fraction of the probe's throughput the soak runs at.
    public static let defaultFraction = 0.7

    /// `fraction` of what each scenario answered per second in `probe`, at least one request per second (so no
    /// scenario runs unthrottled).
    public static func make(probe: [LoadReport], fraction: Double) -> [LoadScenario: Double] {
        Dictionary(probe.map { ($0.plan.scenario, max(1, $0.throughput * fraction)) }) { first, _ in first }
    }
}
