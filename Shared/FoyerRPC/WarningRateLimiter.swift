import Logging
import NIOConcurrencyHelpers
import NIOCore

/// Logs one kind of warning at most `limit` times per `interval`, so a flood of refused peers cannot flood the log;
/// what it holds back is counted and reported in one summary line when the interval ends.
final class WarningRateLimiter: Sendable {
    private let message: Logger.Message
    private let logger: Logger
    private let interval: TimeAmount
    /// Keeps the time (`now`) and runs the summary at the end of an interval.
    private let eventLoop: any EventLoop
    private let budget: NIOLockedValueBox<WarningBudget>

    init(_ message: Logger.Message, limit: Int, interval: TimeAmount, logger: Logger, eventLoop: any EventLoop) {
        self.message = message
        self.logger = logger
        self.interval = interval
        self.eventLoop = eventLoop
        self.budget = NIOLockedValueBox(WarningBudget(limit: limit, interval: interval))
    }

    /// Logs the warning with `metadata` if the budget allows; counts it otherwise.
    func warn(metadata: @autoclosure () -> Logger.Metadata) {
        let verdict = budget.withLockedValue { $0.take(now: eventLoop.now) }
        switch verdict {
        case .log(let suppressedBefore):
            reportSuppressed(suppressedBefore)
            logger.warning(message, metadata: metadata())
        case .suppress(let first):
            guard first else { return }
            // The first one held back: the summary is due when the interval ends.
            eventLoop.scheduleTask(in: interval) { self.flush() }
        }
    }

    /// Reports, in one line, the warnings held back since the last report.
    func flush() {
        reportSuppressed(budget.withLockedValue { $0.takeSuppressed() })
    }

    private func reportSuppressed(_ count: Int) {
        guard count > 0 else { return }
        logger.warning(
            "warnings suppressed",
            metadata: [
                "log.suppressed.message": "\(message)",
                "log.suppressed.count": "\(count)",
                "log.suppressed.intervalMilliseconds": "\(interval.nanoseconds / 1_000_000)",
            ]
        )
    }
}

/// The bookkeeping of `WarningRateLimiter`, without I/O: fixed windows of `interval` starting at the first warning
/// after the previous window ended, `limit` warnings logged in each, the rest counted.
struct WarningBudget: Sendable {
    enum Verdict: Equatable {
        /// Log it; first report `suppressedBefore` warnings held back in an earlier window and not reported yet.
        case log(suppressedBefore: Int)
        /// Hold it back; `first` when nothing was held back since the last report (a summary must be scheduled).
        case suppress(first: Bool)
    }

    let limit: Int
    let interval: TimeAmount
    private var windowStart: NIODeadline?
    private var logged = 0
    private var suppressed = 0

    init(limit: Int, interval: TimeAmount) {
        self.limit = limit
        self.interval = interval
    }

    mutating func take(now: NIODeadline) -> Verdict {
        if windowStart == nil || now - windowStart! >= interval {
            windowStart = now
            logged = 0
            if limit > 0 {
                logged = 1
                return .log(suppressedBefore: takeSuppressed())
            }
        } else if logged < limit {
            logged += 1
            return .log(suppressedBefore: 0)
        }
        suppressed += 1
        return .suppress(first: suppressed == 1)
    }

    /// The count held back since the last report, which is now reported.
    mutating func takeSuppressed() -> Int {
        defer { suppressed = 0 }
        return suppressed
    }
}
