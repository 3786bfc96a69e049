import Foundation
import FoyerAPI
import FoyerRPC
import Synchronization

/// Token buckets per client source for one kind of call, in memory on this replica.
///
/// A refused call answers `rate-limited` with the time until a token is back in `aux`. The table holds at most
/// `sourcesMax` sources: when it is full, sources whose bucket has refilled (as good as new) are dropped, and if
/// none has, the table starts afresh, so memory stays bounded whatever the number of addresses.
final class SourceRateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updatedAt: Date
    }

    let name: String
    private let limit: RateLimit
    private let sourcesMax: Int
    private let buckets = Mutex<[String: Bucket]>([:])

    init(name: String, limit: RateLimit, sourcesMax: Int) {
        self.name = name
        self.limit = limit
        self.sourcesMax = sourcesMax
    }

    /// Takes a token for `source`, or throws `rate-limited` with the wait.
    func admit(_ source: String, now: Date) throws {
        let wait: TimeInterval? = buckets.withLock { buckets in
            var bucket = buckets[source].map { refilled($0, now: now) } ?? Bucket(tokens: burst, updatedAt: now)
            defer {
                if buckets[source] == nil, buckets.count >= sourcesMax { dropIdle(&buckets, now: now) }
                buckets[source] = bucket
            }
            guard bucket.tokens >= 1 else { return (1 - bucket.tokens) / ratePerSecond }
            bucket.tokens -= 1
            return nil
        }
        guard let wait else { return }
        throw RPCError(
            GatewayStatus.rateLimited,
            "too many \(name) calls from this address; try again later",
            retryAfterMilliseconds: UInt32(clamping: Int64((wait * 1000).rounded(.up)))
        )
    }

    /// Sources in the table (for tests).
    var trackedSources: Int { buckets.withLock { $0.count } }

    private var burst: Double { Double(max(1, limit.burst)) }
    private var ratePerSecond: Double { Double(max(1, limit.perMinute)) / 60 }

    private func refilled(_ bucket: Bucket, now: Date) -> Bucket {
        let elapsed = max(0, now.timeIntervalSince(bucket.updatedAt))
        return Bucket(tokens: min(burst, bucket.tokens + elapsed * ratePerSecond), updatedAt: now)
    }

    private func dropIdle(_ buckets: inout [String: Bucket], now: Date) {
        buckets = buckets.filter { refilled($0.value, now: now).tokens < burst }
        if buckets.count >= sourcesMax { buckets.removeAll(keepingCapacity: true) }
    }
}
