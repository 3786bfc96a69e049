import Foundation
import FoyerAPI
import FoyerRPC
import Synchronization

/// How the gateway keeps a revoked session from working for more than a moment.
///
/// An access token's signature says nothing about whether its session was revoked since (sign-out, a reused
/// refresh token, a merge, a deletion), so every data call also needs identity's word that the session is live.
/// Asking on every call would double identity's load; asking never would leave a revoked token working for the
/// rest of its 15 minutes. Each answer is therefore remembered for `freshness` (1 s by default): a revocation
/// anywhere reaches every gateway replica within that bound, and a session making many calls costs identity one
/// check per second. When identity cannot be asked, the call fails (nothing is served on a stale answer).
///
/// Operations this replica runs that revoke sessions (sign-out, deletion, link-or-merge) forget what it knew of the
/// user at once, so their own client is refused on its very next call. identity's refusals are remembered longer
/// (a revoked session never comes back). Memory is bounded by `capacity` entries.
final class SessionChecks: Sendable {
    /// A token as far as liveness goes: its session, and when it was issued (a user's not-before can refuse
    /// older tokens of a live session).
    struct Key: Hashable, Sendable {
        var sessionID: String
        var issuedAt: Int64
    }

    private enum Verdict: Sendable {
        case live
        case refused(RPCError)
    }

    private struct Entry: Sendable {
        var uid: String
        var verdict: Verdict
        /// When the check that gave the verdict began (so an answer can never be fresher than the question).
        var checkedAt: Date
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        /// Users this replica revoked, and when: answers checked before that no longer count.
        var forgotten: [String: Date] = [:]
    }

    private let freshness: TimeInterval
    private let refusalMemory: TimeInterval
    private let capacity: Int
    private let state = Mutex(State())
    private let flights = SingleFlight<Key, Entry>()

    init(freshness: Duration, refusalMemory: Duration, capacity: Int) {
        self.freshness = Self.seconds(freshness)
        self.refusalMemory = Self.seconds(refusalMemory)
        self.capacity = capacity
    }

    /// Returns if identity said recently enough that the token's session is live; otherwise asks with `verify`
    /// (one call per key however many callers wait) and throws identity's refusal.
    func confirm(
        _ key: Key,
        uid: String,
        now: @Sendable () -> Date,
        verify: () async throws -> Void
    ) async throws {
        let entry: Entry
        if let known = lookup(key, uid: uid, now: now()) {
            entry = known
        } else {
            entry = try await flights.run(key) {
                let checkedAt = now()
                let answer: Entry
                do {
                    try await verify()
                    answer = Entry(uid: uid, verdict: .live, checkedAt: checkedAt)
                } catch let refusal as RPCError where refusal.status == IdentityStatus.tokenRevoked {
                    answer = Entry(uid: uid, verdict: .refused(refusal), checkedAt: checkedAt)
                }
                // Kept before the callers waiting for it are woken, so a caller arriving just after finds it.
                remember(key, answer, now: now())
                return answer
            }
        }
        if case .refused(let refusal) = entry.verdict { throw refusal }
    }

    /// Forgets every answer about `uid` checked before `now`: its next call asks identity again.
    func forget(uid: String, now: Date) {
        state.withLock { state in
            state.forgotten[uid] = now
            if state.forgotten.count > capacity {
                state.forgotten = state.forgotten.filter { now.timeIntervalSince($0.value) < freshness }
            }
        }
    }

    /// Entries held (for tests).
    var count: Int { state.withLock { $0.entries.count } }
    /// Callers waiting for another caller's check (for tests).
    var waiting: Int { flights.waiterCount }

    private func lookup(_ key: Key, uid: String, now: Date) -> Entry? {
        state.withLock { state in
            guard let entry = state.entries[key], entry.uid == uid, isValid(entry, in: state, now: now) else {
                return nil
            }
            return entry
        }
    }

    private func remember(_ key: Key, _ entry: Entry, now: Date) {
        state.withLock { state in
            guard isValid(entry, in: state, now: now) else { return }
            if state.entries.count >= capacity {
                state.entries = state.entries.filter { isValid($0.value, in: state, now: now) }
                guard state.entries.count < capacity else { return }
            }
            state.entries[key] = entry
        }
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        TimeInterval(duration.components.seconds) + TimeInterval(duration.components.attoseconds) / 1e18
    }

    private func isValid(_ entry: Entry, in state: State, now: Date) -> Bool {
        let age = now.timeIntervalSince(entry.checkedAt)
        switch entry.verdict {
        case .refused:
            return age < refusalMemory
        case .live:
            if let forgotten = state.forgotten[entry.uid], entry.checkedAt <= forgotten { return false }
            return age < freshness && age >= 0
        }
    }
}
