import NIOConcurrencyHelpers
import NIOCore

/// A counting semaphore for async code: `acquire` suspends while no permit is free.
///
/// Used to bound work that must not run unboundedly in parallel (requests across connections, password
/// hashes). Waiters are served first come, first served; a cancelled waiter leaves the queue and throws
/// `CancellationError`.
public final class AsyncSemaphore: Sendable {
    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var available: Int
        var waiters = CircularBuffer<Waiter>()
        var nextWaiterID: UInt64 = 0
        /// Waiters whose cancellation came before they were queued (so it found nothing to remove).
        var cancelledEarly: Set<UInt64> = []
    }

    private let state: NIOLockedValueBox<State>

    public init(permits: Int) {
        precondition(permits > 0, "a semaphore needs at least one permit")
        state = NIOLockedValueBox(State(available: permits))
    }

    /// Takes a permit, waiting for one if none is free.
    public func acquire() async throws {
        if state.withLockedValue({ state in
            guard state.available > 0 else { return false }
            state.available -= 1
            return true
        }) {
            return
        }
        let id = state.withLockedValue { state in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        // The cancellation handler and the queueing both take the lock, so whichever comes second sees the first:
        // a waiter cancelled before it was queued is never queued.
        defer { _ = state.withLockedValue { $0.cancelledEarly.remove(id) } }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome: Result<Bool, CancellationError> = state.withLockedValue { state in
                    if state.cancelledEarly.remove(id) != nil || Task.isCancelled {
                        return .failure(CancellationError())
                    }
                    if state.available > 0 {
                        state.available -= 1
                        return .success(true)
                    }
                    state.waiters.append(Waiter(id: id, continuation: continuation))
                    return .success(false)
                }
                switch outcome {
                case .failure(let error): continuation.resume(throwing: error)
                case .success(true): continuation.resume()
                case .success(false): break
                }
            }
        } onCancel: {
            let cancelled: Waiter? = state.withLockedValue { state in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                    state.cancelledEarly.insert(id)
                    return nil
                }
                return state.waiters.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Takes a permit if one is free, without waiting.
    public func tryAcquire() -> Bool {
        state.withLockedValue { state in
            guard state.available > 0 else { return false }
            state.available -= 1
            return true
        }
    }

    /// Returns a permit, handing it straight to the longest waiter if there is one.
    public func release() {
        let next: Waiter? = state.withLockedValue { state in
            if let waiter = state.waiters.popFirst() { return waiter }
            state.available += 1
            return nil
        }
        next?.continuation.resume()
    }
}
