/// What one timed run of a load driver did (`GuestQuotaLoad`, `UserDataLoad`).
struct LoadRunResult: Sendable, CustomStringConvertible {
    /// Calls answered successfully.
    var succeeded: Int
    /// Calls that failed (any status, denials included).
    var failed: Int
    /// Wall time of the measured part (set-up excluded).
    var elapsed: Duration

    var perSecond: Double {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return seconds > 0 ? Double(succeeded) / seconds : 0
    }

    var description: String {
        "\(succeeded) ok, \(failed) failed in \(elapsed): \(Int(perSecond.rounded()))/s"
    }
}
