import Foundation
import FoyerAPI
import FoyerRPC
import Synchronization
import Testing

@testable import FoyerGateway

/// A clock the tests move by hand.
private final class ManualClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
    var now: Date { current.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { current.withLock { $0 += seconds } }
}

/// Counts the checks that reach "identity", and answers them as told.
private final class FakeIdentity: Sendable {
    private let state = Mutex((calls: 0, revoked: false))
    var calls: Int { state.withLock { $0.calls } }
    func revoke() { state.withLock { $0.revoked = true } }

    func verify() async throws {
        let revoked = state.withLock { state in
            state.calls += 1
            return state.revoked
        }
        if revoked { throw RPCError(IdentityStatus.tokenRevoked, "the session was revoked") }
    }
}

@Suite("Session checks: how long a revoked session keeps working at the gateway")
struct SessionChecksTests {
    private let key = SessionChecks.Key(sessionID: "s1", issuedAt: 1_800_000_000)

    private func checks(capacity: Int = 100) -> SessionChecks {
        SessionChecks(freshness: .seconds(1), refusalMemory: .seconds(960), capacity: capacity)
    }

    @Test("Within the interval identity is asked once; after it, again, and a revocation is then refused")
    func revocationIsSeenAfterTheInterval() async throws {
        let clock = ManualClock()
        let identity = FakeIdentity()
        let checks = checks()
        let now: @Sendable () -> Date = { clock.now }
        for _ in 0..<5 { try await checks.confirm(key, uid: "u1", now: now, verify: identity.verify) }
        #expect(identity.calls == 1)

        identity.revoke()
        clock.advance(0.5)
        // Still within the interval: the earlier answer stands (the documented bound, not a leak).
        try await checks.confirm(key, uid: "u1", now: now, verify: identity.verify)
        #expect(identity.calls == 1)

        clock.advance(0.5)
        let refusal = await #expect(throws: RPCError.self) {
            try await checks.confirm(key, uid: "u1", now: now, verify: identity.verify)
        }
        #expect(refusal?.status == IdentityStatus.tokenRevoked)
        #expect(identity.calls == 2)
        // The refusal is remembered: a revoked token cannot make identity work on every call.
        clock.advance(10)
        await #expect(throws: RPCError.self) {
            try await checks.confirm(key, uid: "u1", now: now, verify: identity.verify)
        }
        #expect(identity.calls == 2)
    }

    @Test("Forgetting a user makes its very next call ask identity, at the same instant")
    func forgetIsImmediate() async throws {
        let clock = ManualClock()
        let identity = FakeIdentity()
        let checks = checks()
        let now: @Sendable () -> Date = { clock.now }
        try await checks.confirm(key, uid: "u1", now: now, verify: identity.verify)
        identity.revoke()
        checks.forget(uid: "u1", now: clock.now)
        await #expect(throws: RPCError.self) {
            try await checks.confirm(key, uid: "u1", now: now, verify: identity.verify)
        }
        #expect(identity.calls == 2)
    }

    @Test("Concurrent calls of one session share one check")
    func concurrentCallsShareOneCheck() async throws {
        let clock = ManualClock()
        let identity = FakeIdentity()
        let checks = checks()
        let gate = AsyncGate()
        let now: @Sendable () -> Date = { clock.now }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<32 {
                group.addTask {
                    try await checks.confirm(self.key, uid: "u1", now: now) {
                        await gate.wait()
                        try await identity.verify()
                    }
                }
            }
            // Let every task reach the check before the leader's answer comes back.
            while checks.waiting < 31 { await Task.yield() }
            gate.open()
            try await group.waitForAll()
        }
        #expect(identity.calls == 1)
    }

    @Test("Errors other than a revocation are not remembered (identity unreachable fails the call, then retries)")
    func failuresAreNotCached() async throws {
        let clock = ManualClock()
        let checks = checks()
        let now: @Sendable () -> Date = { clock.now }
        await #expect(throws: RPCError.self) {
            try await checks.confirm(key, uid: "u1", now: now) { throw RPCError(.unavailable, "identity is down") }
        }
        let identity = FakeIdentity()
        try await checks.confirm(key, uid: "u1", now: now, verify: identity.verify)
        #expect(identity.calls == 1)
    }

    @Test("A full table keeps working and stays within its capacity")
    func capacityIsBounded() async throws {
        let clock = ManualClock()
        let identity = FakeIdentity()
        let checks = checks(capacity: 10)
        let now: @Sendable () -> Date = { clock.now }
        for index in 0..<50 {
            let key = SessionChecks.Key(sessionID: "s\(index)", issuedAt: 1)
            try await checks.confirm(key, uid: "u\(index)", now: now, verify: identity.verify)
        }
        #expect(checks.count <= 10)
        clock.advance(2)
        try await checks.confirm(key, uid: "u1", now: now, verify: identity.verify)
        #expect(checks.count <= 10)
    }
}

/// A one-shot gate: `wait()` suspends until `open()`.
final class AsyncGate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { waiter in
            let proceed = state.withLock { state in
                if state.open { return true }
                state.waiters.append(waiter)
                return false
            }
            if proceed { waiter.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
