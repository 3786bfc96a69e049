import FoyerClient
import FoyerLoad
import Logging

/// The scenarios of a soak run, each with its own virtual users, running side by side through `LoadRunner`.
struct SoakMix {
    /// Every load scenario: sign-ups, whole guest journeys, merges, member reads and writes, refreshes.
    static let scenarios = LoadScenario.allCases

    let concurrency: Int
    let configuration: FoyerClientConfiguration
    let logger: Logger

    /// Runs every scenario unthrottled for `duration` and returns their reports in the order of `scenarios`.
    func probe(duration: Duration) async throws -> [LoadReport] {
        let plans = try plans(duration: duration, rates: nil)
        return await withTaskGroup(of: (Int, LoadReport).self) { group in
            for (index, plan) in plans.enumerated() {
                group.addTask { (index, await runner(plan, recorder: LoadRecorder()).run()) }
            }
            return await group.reduce(into: []) { $0.append($1) }.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }

    /// Runs every scenario for `minutes` minutes of `minute` each, without a break, at its rate in `rates`, and
    /// calls `minuteEnded` at the end of each minute with the minute's number (from 1) and the reports of what each
    /// scenario did in it (in the order of `scenarios`). The last minute's reports come once the runs have ended,
    /// so they include the iterations that were still under way and the virtual users' tear-down.
    func soak(
        minutes: Int,
        minute: Duration,
        rates: [LoadScenario: Double],
        minuteEnded: (Int, [LoadReport]) -> Void
    ) async throws {
        let plans = try plans(duration: minute * minutes, rates: rates)
        let recorders = plans.map { _ in LoadRecorder() }
        let start = ContinuousClock.now
        let finals = try await withThrowingTaskGroup(of: (Int, LoadReport).self) { group in
            for (index, plan) in plans.enumerated() {
                group.addTask { (index, await runner(plan, recorder: recorders[index]).run()) }
            }
            for index in 1..<minutes {
                try await Task.sleep(until: start + minute * index, clock: .continuous)
                minuteEnded(index, zip(plans, recorders).map { $1.takeReport(plan: $0, elapsed: minute) })
            }
            return try await group.reduce(into: []) { $0.append($1) }.sorted { $0.0 < $1.0 }.map(\.1)
        }
        let last = ContinuousClock.now - (start + minute * (minutes - 1))
        minuteEnded(
            minutes,
            finals.map { report in
                var report = report
                report.elapsed = last
                return report
            }
        )
    }

    private func plans(duration: Duration, rates: [LoadScenario: Double]?) throws -> [LoadPlan] {
        try Self.scenarios.map { scenario in
            try LoadPlan(
                scenario: scenario,
                duration: duration,
                concurrency: concurrency,
                rate: rates.map { $0[scenario] ?? 1 }
            )
        }
    }

    private func runner(_ plan: LoadPlan, recorder: LoadRecorder) -> LoadRunner {
        LoadRunner(plan: plan, configuration: configuration, logger: logger, recorder: recorder)
    }
}
