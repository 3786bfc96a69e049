import Foundation
import FoyerWire
import NIOCore
import Synchronization

/// Answers of finished multi-service operations by operation id, kept for a while so that a client retrying
/// after a lost answer gets the first answer instead of an error from a step that can no longer run (a merged
/// guest's token no longer verifies, a conflict ticket is spent).
///
/// Per replica and in memory: a retry that reaches another replica re-runs the (idempotent) steps instead.
final class OperationResults: Sendable {
    private struct Entry {
        let request: ByteBuffer
        let answer: ByteBuffer
        let storedAt: Date
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var order: [String] = []
    }

    private let capacity: Int
    private let lifetime: TimeInterval
    private let state = Mutex(State())

    init(capacity: Int, lifetime: Duration) {
        self.capacity = capacity
        self.lifetime = Double(lifetime.components.seconds)
    }

    enum Lookup {
        case none
        case answer(ByteBuffer)
        /// The id was used for a different request.
        case conflict
    }

    /// The remembered answer of `operationID` if `request` (the request without its access token) matches.
    func lookup(_ operationID: String, request: ByteBuffer, now: Date) -> Lookup {
        state.withLock { state in
            guard let entry = state.entries[operationID], now.timeIntervalSince(entry.storedAt) < lifetime else {
                return .none
            }
            return entry.request == request ? .answer(entry.answer) : .conflict
        }
    }

    func remember(_ operationID: String, request: ByteBuffer, answer: ByteBuffer, now: Date) {
        state.withLock { state in
            if state.entries.updateValue(Entry(request: request, answer: answer, storedAt: now), forKey: operationID)
                == nil
            {
                state.order.append(operationID)
            }
            while state.order.count > capacity {
                state.entries[state.order.removeFirst()] = nil
            }
        }
    }
}

/// Remembers when each user's activity was last reported, so identity hears of it at most once per interval.
final class ActivityThrottle: Sendable {
    private let interval: TimeInterval
    private let capacity = 100_000
    private let lastReported = Mutex([String: Date]())

    init(interval: Duration) {
        self.interval = Double(interval.components.seconds)
    }

    /// Whether `uid`'s activity should be reported now (and, if so, notes that it is).
    func shouldReport(_ uid: String, now: Date) -> Bool {
        lastReported.withLock { table in
            if let last = table[uid], now.timeIntervalSince(last) < interval { return false }
            if table.count >= capacity { table.removeAll(keepingCapacity: true) }
            table[uid] = now
            return true
        }
    }
}
