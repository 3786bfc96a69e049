import Foundation
import Synchronization

/// Remembers when this process last wrote each user's activity, so `recordActivity` reaches the database at most
/// once per interval per user (and the conditional UPDATE keeps replicas from writing more often either).
/// Bounded: past `capacity` users the memory is cleared, which only costs an extra conditional write per user.
final class ActivityRecorder: Sendable {
    private let interval: Duration
    private let capacity: Int
    private let written = Mutex<[String: Date]>([:])

    init(interval: Duration, capacity: Int = 100_000) {
        self.interval = interval
        self.capacity = capacity
    }

    /// Whether the activity of `uid` should be written at `now`; if so, it is remembered as written.
    func shouldWrite(uid: String, now: Date) -> Bool {
        written.withLock { written in
            if let last = written[uid], now >= last, now < last.adding(interval) { return false }
            if written.count >= capacity { written.removeAll(keepingCapacity: true) }
            written[uid] = now
            return true
        }
    }

    /// Forgets a user (after a failed write, or its deletion).
    func forget(uid: String) {
        _ = written.withLock { $0.removeValue(forKey: uid) }
    }
}
