import NIOCore

/// A token bucket for rate limits measured against a monotonic clock: `rate` tokens a second, up to `burst`.
struct TokenBucket: Sendable {
    private let ratePerSecond: Double
    private let burst: Double
    private var tokens: Double
    private var updatedAt: NIODeadline

    init(ratePerSecond: Int, burst: Int, now: NIODeadline) {
        self.ratePerSecond = Double(ratePerSecond)
        self.burst = Double(burst)
        self.tokens = Double(burst)
        self.updatedAt = now
    }

    /// Takes one token if there is one.
    mutating func take(now: NIODeadline) -> Bool {
        let elapsed = Double((now - updatedAt).nanoseconds) / 1e9
        tokens = min(burst, tokens + max(0, elapsed) * ratePerSecond)
        updatedAt = now
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }
}
