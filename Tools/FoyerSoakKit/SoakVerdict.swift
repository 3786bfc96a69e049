import FoyerLoad

/// Whether a soak run passed, and why not.
///
/// It fails on any unexpected error (in the capacity probe or any minute: an error status, an iteration cut short,
/// a run stopped early; expected refusals are outcomes, not errors), on a service that stopped running, and on
/// memory growth. Each minute's RSS of a service is the lowest sampled during that minute (see `ProcessFigures`:
/// what it holds between requests); the largest of these in minutes 3, 4, … may exceed that of minute 2 (the
/// baseline, once caches and pools have warmed up) by at most 10 %. Runs shorter than 3 minutes have nothing after
/// the baseline: only errors are checked, and a note says so.
public struct SoakVerdict: Codable, Equatable, Sendable {
    /// The minute whose end gives each service's baseline RSS.
    public static let baselineMinute = 2
    /// The fewest minutes for the memory check: the baseline and one minute after it.
    public static let minutesForMemoryCheck = baselineMinute + 1
    /// The largest growth allowed over the baseline, as a fraction (0.10 is 10 %).
    public static let residentGrowthMax = 0.10

    public var passed: Bool
    /// Why it failed; empty when it passed.
    public var failures: [String]
    /// What was not checked, and why.
    public var notes: [String]
    /// Whether the memory check ran (the run had at least `minutesForMemoryCheck` minutes).
    public var memoryChecked: Bool
    /// By service: the largest minute's RSS after the baseline minute over the baseline's, minus one (0.05 is 5 %
    /// growth).
    public var residentGrowth: [String: Double]

    /// Judges a run: its capacity probe (`nil` when there was none) and its minutes, in order.
    public static func judge(probe: SoakMinute?, minutes: [SoakMinute]) -> SoakVerdict {
        var failures: [String] = []
        var notes: [String] = []
        if let probe, !probe.isClean { failures.append("capacity probe: \(errorText(probe))") }
        for minute in minutes where !minute.isClean {
            failures.append("minute \(minute.minute): \(errorText(minute))")
        }
        let services = Set(minutes.flatMap(\.services.keys) + (probe?.services.keys.map { $0 } ?? []))
        for minute in minutes {
            for service in services.sorted() where minute.services[service] == nil {
                failures.append("minute \(minute.minute): \(service) was not running at the end")
            }
        }
        var growth: [String: Double] = [:]
        let memoryChecked = minutes.count >= minutesForMemoryCheck
        if memoryChecked {
            let baseline = minutes[baselineMinute - 1]
            for service in services.sorted() {
                guard let base = baseline.services[service]?.residentBytes, base > 0 else { continue }
                let later = minutes[baselineMinute...].compactMap { $0.services[service]?.residentBytes }
                guard let peak = later.max() else { continue }
                let fraction = Double(peak) / Double(base) - 1
                growth[service] = fraction
                if fraction > residentGrowthMax {
                    failures.append(
                        "\(service): RSS grew \(percent(fraction)) (\(mebibytes(base)) in minute \(baselineMinute), "
                            + "up to \(mebibytes(peak)) later); at most "
                            + "\(percent(residentGrowthMax)) is allowed"
                    )
                }
            }
        } else {
            notes.append(
                "the memory check needs at least \(minutesForMemoryCheck) minutes (the baseline is the end of minute "
                    + "\(baselineMinute)): only errors were checked"
            )
        }
        return SoakVerdict(
            passed: failures.isEmpty,
            failures: failures,
            notes: notes,
            memoryChecked: memoryChecked,
            residentGrowth: growth
        )
    }

    /// Records a failure found outside the minutes (the stack did not stop cleanly).
    public mutating func fail(_ reason: String) {
        failures.append(reason)
        passed = false
    }

    private static func errorText(_ minute: SoakMinute) -> String {
        var parts: [String] = []
        if minute.errorCount > 0 { parts.append("errors " + SoakText.listing(minute.errors)) }
        if minute.failedIterations > 0 { parts.append("\(minute.failedIterations) iterations cut short") }
        parts += minute.stopReasons.map { "stopped early: \($0)" }
        return parts.joined(separator: "; ")
    }

    static func percent(_ fraction: Double) -> String {
        (fraction < 0 ? "-" : "") + LoadReport.decimal(abs(fraction) * 100, places: 1) + " %"
    }

    static func mebibytes(_ bytes: UInt64) -> String {
        LoadReport.decimal(Double(bytes) / 1_048_576, places: 1) + " MiB"
    }
}
