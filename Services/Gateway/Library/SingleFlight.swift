import Synchronization

/// One piece of work per key at a time: callers that ask for a key while its work is under way wait for that
/// work's result instead of starting their own (so a burst of calls for one session, or for the key set, costs one
/// call to identity).
///
/// A follower whose leader was cancelled does not inherit the cancellation: it tries again, and may lead itself.
public final class SingleFlight<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private typealias Waiter = CheckedContinuation<Value?, any Error>
    private let waiting = Mutex<[Key: [Waiter]]>([:])

    public init() {}

    /// Callers waiting for work another caller runs.
    var waiterCount: Int { waiting.withLock { $0.values.reduce(0) { $0 + $1.count } } }

    /// The result of `work` for `key`, run here or by the caller already running it.
    public func run(_ key: Key, _ work: () async throws -> Value) async throws -> Value {
        while true {
            let leads = waiting.withLock { waiting in
                guard waiting[key] == nil else { return false }
                waiting[key] = []
                return true
            }
            if leads { return try await lead(key, work) }
            if let value = try await follow(key) { return value }
        }
    }

    private func lead(_ key: Key, _ work: () async throws -> Value) async throws -> Value {
        let result: Result<Value, any Error>
        do {
            result = .success(try await work())
        } catch {
            result = .failure(error)
        }
        let waiters = waiting.withLock { $0.removeValue(forKey: key) ?? [] }
        for waiter in waiters {
            switch result {
            case .success(let value): waiter.resume(returning: value)
            case .failure(is CancellationError): waiter.resume(returning: nil)
            case .failure(let error): waiter.resume(throwing: error)
            }
        }
        return try result.get()
    }

    /// Waits for the running work; `nil` if it ended before this caller joined, or was cancelled: try again.
    private func follow(_ key: Key) async throws -> Value? {
        try await withCheckedThrowingContinuation { (waiter: Waiter) in
            let joined = waiting.withLock { waiting in
                guard waiting[key] != nil else { return false }
                waiting[key]?.append(waiter)
                return true
            }
            if !joined { waiter.resume(returning: nil) }
        }
    }
}
