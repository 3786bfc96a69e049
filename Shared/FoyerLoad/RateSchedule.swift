import Synchronization

/// When each request may start under `--rate`: token `n` is due `n / rate` seconds after the start, whoever takes
/// it, so virtual users together keep to the rate without bunching up after a slow answer (a user that falls
/// behind takes its next token at once).
public struct RateSchedule: Sendable {
    /// Requests per second, more than zero.
    public let rate: Double

    public init(rate: Double) {
        precondition(rate > 0, "a rate is more than zero")
        self.rate = rate
    }

    /// How long after the start token `index` (from 0) is due.
    public func offset(ofToken index: Int) -> Duration {
        let nanoseconds = (Double(index) / rate * 1e9).rounded(.down)
        return .nanoseconds(Int64(min(nanoseconds, Double(Int64.max))))
    }
}

/// Hands out the tokens of a `RateSchedule` to concurrent virtual users.
final class TokenDispenser: Sendable {
    private let schedule: RateSchedule
    private let start: ContinuousClock.Instant
    private let next = Atomic<Int>(0)

    init(schedule: RateSchedule, start: ContinuousClock.Instant) {
        self.schedule = schedule
        self.start = start
    }

    /// Takes the next token and waits until it is due (returns at once when it already is, or on cancellation).
    func take() async {
        let index = next.add(1, ordering: .relaxed).oldValue
        let due = start + schedule.offset(ofToken: index)
        guard due > .now else { return }
        try? await Task.sleep(until: due, clock: .continuous)
    }
}
