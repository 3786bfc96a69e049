import Foundation

/// A dictionary whose entries all live for the same `lifetime` after they were stored, and at most `capacity` of
/// them at once.
///
/// The gateway's in-memory tables (session answers, finished operations, activity reports) see a new key on almost
/// every sign-in, and each key matters for a fixed while. Pruning only when a table is full let every table grow to
/// its capacity under steady load, so a replica's memory followed how long it had run rather than how busy it was.
/// Here expired entries go as new ones arrive: entries are queued in the order stored, which with one lifetime per
/// table is also the order they expire, so each store drops the expired front of the queue, amortised O(1). When the
/// table is full of live entries, the oldest goes.
///
/// Not thread-safe: its owner keeps it behind a lock.
struct ExpiringTable<Key: Hashable, Value> {
    private struct Entry {
        var value: Value
        var storedAt: Date
    }

    let lifetime: TimeInterval
    let capacity: Int
    private var entries: [Key: Entry] = [:]
    /// Keys in the order stored, with the time each was stored; `head` is the first still queued.
    private var queue: [(key: Key, storedAt: Date)] = []
    private var head = 0

    init(lifetime: TimeInterval, capacity: Int) {
        precondition(capacity > 0, "an expiring table needs room for one entry")
        self.lifetime = lifetime
        self.capacity = capacity
    }

    init(lifetime: Duration, capacity: Int) {
        let (seconds, attoseconds) = lifetime.components
        self.init(lifetime: TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18, capacity: capacity)
    }

    /// Entries held, expired or not (for tests and metrics).
    var count: Int { entries.count }

    /// The value stored for `key` less than `lifetime` before `now` (and not after it), with when it was stored.
    func entry(_ key: Key, now: Date) -> (value: Value, storedAt: Date)? {
        guard let entry = entries[key], isLive(entry.storedAt, now: now) else { return nil }
        return (entry.value, entry.storedAt)
    }

    func value(_ key: Key, now: Date) -> Value? {
        entry(key, now: now)?.value
    }

    /// Stores `value` for `key` as of `storedAt` (replacing what was there), after dropping what expired by `now`.
    mutating func store(_ value: Value, for key: Key, storedAt: Date, now: Date) {
        removeExpired(now: now)
        if entries[key] == nil {
            while entries.count >= capacity, head < queue.count { removeFront() }
        }
        entries[key] = Entry(value: value, storedAt: storedAt)
        queue.append((key, storedAt))
    }

    mutating func removeValue(for key: Key) {
        // Its place in the queue stays until it reaches the front, where it no longer matches an entry.
        entries[key] = nil
    }

    /// Drops every entry whose value matches `shouldRemove` (their places in the queue stay, as in `removeValue`).
    mutating func removeAll(where shouldRemove: (Value) -> Bool) {
        entries = entries.filter { !shouldRemove($0.value.value) }
    }

    /// Drops every entry stored `lifetime` or more before `now`.
    mutating func removeExpired(now: Date) {
        while head < queue.count, now.timeIntervalSince(queue[head].storedAt) >= lifetime { removeFront() }
    }

    private func isLive(_ storedAt: Date, now: Date) -> Bool {
        let age = now.timeIntervalSince(storedAt)
        return age >= 0 && age < lifetime
    }

    /// Dequeues the front key, and drops its entry unless a later store of the same key replaced it.
    private mutating func removeFront() {
        let front = queue[head]
        head += 1
        if let entry = entries[front.key], entry.storedAt == front.storedAt { entries[front.key] = nil }
        if head >= 1024, head * 2 >= queue.count {
            queue.removeFirst(head)
            head = 0
        }
    }
}
