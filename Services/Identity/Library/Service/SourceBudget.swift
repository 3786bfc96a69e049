import Foundation
import Synchronization

/// A token bucket per client source, kept in memory (each replica counts on its own).
///
/// A source may spend `burst` at once, then regains one unit every `refillInterval`. At most `sourcesMax` sources
/// are held: when that many are, the buckets that have refilled completely are dropped (a full bucket is the same
/// as none), and if that leaves more than three quarters of the cap, the least recently seen go until it does
/// (forgetting a source only ever gives it its full budget back).
final class SourceBudget: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Date
    }

    private let burst: Double
    private let refillSeconds: Double
    private let sourcesMax: Int
    private let buckets = Mutex<[String: Bucket]>([:])

    init(burst: Int, refillInterval: Duration, sourcesMax: Int) {
        self.burst = Double(max(1, burst))
        self.refillSeconds = max(refillInterval.timeInterval, 0.001)
        self.sourcesMax = max(1, sourcesMax)
    }

    /// Spends one unit of `key`'s budget at `now`. Answers nil when granted, or how long until one unit is back.
    func spend(_ key: String, now: Date) -> Duration? {
        buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: burst, updated: now)
            let elapsed = max(0, now.timeIntervalSince(bucket.updated))
            bucket.tokens = min(burst, bucket.tokens + elapsed / refillSeconds)
            bucket.updated = max(bucket.updated, now)
            let granted = bucket.tokens >= 1
            if granted { bucket.tokens -= 1 }
            if buckets[key] == nil && buckets.count >= sourcesMax { makeRoom(&buckets, now: now) }
            buckets[key] = bucket
            guard !granted else { return nil }
            return .milliseconds(Int64(((1 - bucket.tokens) * refillSeconds * 1000).rounded(.up)))
        }
    }

    private func makeRoom(_ buckets: inout [String: Bucket], now: Date) {
        buckets = buckets.filter { _, bucket in
            bucket.tokens + max(0, now.timeIntervalSince(bucket.updated)) / refillSeconds < burst
        }
        guard buckets.count >= sourcesMax * 3 / 4 else { return }
        let oldest = buckets.sorted { $0.value.updated < $1.value.updated }.prefix(buckets.count - sourcesMax * 3 / 4)
        for (key, _) in oldest { buckets[key] = nil }
    }
}
