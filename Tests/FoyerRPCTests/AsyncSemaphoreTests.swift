import FoyerRPC
import Synchronization
import Testing

@Suite("AsyncSemaphore")
struct AsyncSemaphoreTests {
    @Test("No more holders than permits at once; every waiter gets its turn")
    func bounds() async throws {
        let semaphore = AsyncSemaphore(permits: 2)
        let holders = Holders()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try await semaphore.acquire()
                    holders.count.withLock {
                        $0.now += 1; $0.most = max($0.most, $0.now)
                    }
                    await Task.yield()
                    holders.count.withLock { $0.now -= 1 }
                    semaphore.release()
                }
            }
            try await group.waitForAll()
        }
        #expect(holders.count.withLock { $0.most } == 2)
        #expect(semaphore.tryAcquire() && semaphore.tryAcquire() && !semaphore.tryAcquire())
    }

    @Test("A cancelled waiter throws at once and takes no permit, cancelled before or after it is queued")
    func cancellation() async throws {
        let semaphore = AsyncSemaphore(permits: 1)
        #expect(semaphore.tryAcquire())
        for round in 0..<500 {
            let waiter = Task { try await semaphore.acquire() }
            if round % 2 == 0 { await Task.yield() }
            waiter.cancel()
            // A waiter left queued by a lost cancellation would wait here until a release; the watchdog gives
            // one after 30 s so the failure shows instead of a hung run.
            let outcome = await withTaskGroup(of: Bool?.self) { group in
                group.addTask {
                    do {
                        try await waiter.value
                        return false
                    } catch {
                        return error is CancellationError
                    }
                }
                group.addTask {
                    try? await Task.sleep(for: .seconds(30))
                    return nil
                }
                let first = await group.next()!
                if first == nil { semaphore.release() }
                group.cancelAll()
                return first
            }
            #expect(
                outcome == true,
                "round \(round): the cancelled waiter \(outcome == nil ? "stayed queued" : "got a permit")"
            )
            if outcome != true { return }
        }
        // The one permit is still held by the test, and no waiter is left to take it on release.
        semaphore.release()
        #expect(semaphore.tryAcquire())
    }
}

/// How many hold a permit now, and the most at once.
private final class Holders: Sendable {
    let count = Mutex((now: 0, most: 0))
}
