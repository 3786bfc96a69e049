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
/// (a revoked session never comes back). Each answer is dropped once it has expired, as new ones arrive, and each
/// table holds at most `capacity` entries.
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
        /// Sessions identity said were live, with their uid, for `freshness` after the check began.
        var live: ExpiringTable<Key, String>
        /// Tokens identity refused, until they would have expired anyway.
        var refused: ExpiringTable<Key, (uid: String, refusal: RPCError)>
        /// Users this replica revoked, stored as of the revocation: live answers checked before it no longer count.
        /// A mark older than `freshness` can only concern answers that have expired by themselves.
        var forgotten: ExpiringTable<String, Void>
    }

    private let state: Mutex<State>
    private let flights = SingleFlight<Key, Entry>()

    init(freshness: Duration, refusalMemory: Duration, capacity: Int) {
        state = Mutex(
            State(
                live: ExpiringTable(lifetime: freshness, capacity: capacity),
                refused: ExpiringTable(lifetime: refusalMemory, capacity: capacity),
                forgotten: ExpiringTable(lifetime: freshness, capacity: capacity)
            )
        )
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
        state.withLock { $0.forgotten.store((), for: uid, storedAt: now, now: now) }
    }

    /// Entries held, expired ones not yet dropped included (for tests).
    var count: Int { state.withLock { $0.live.count + $0.refused.count + $0.forgotten.count } }
    /// Callers waiting for another caller's check (for tests).
    var waiting: Int { flights.waiterCount }

    private func lookup(_ key: Key, uid: String, now: Date) -> Entry? {
        state.withLock { state in
            if let refused = state.refused.entry(key, now: now), refused.value.uid == uid {
                return Entry(uid: uid, verdict: .refused(refused.value.refusal), checkedAt: refused.storedAt)
            }
            guard let live = state.live.entry(key, now: now), live.value == uid,
                !Self.isForgotten(uid, checkedAt: live.storedAt, in: state, now: now)
            else { return nil }
            return Entry(uid: uid, verdict: .live, checkedAt: live.storedAt)
        }
    }

    private func remember(_ key: Key, _ entry: Entry, now: Date) {
        state.withLock { state in
            switch entry.verdict {
            case .refused(let refusal):
                state.live.removeValue(for: key)
                state.refused.store((entry.uid, refusal), for: key, storedAt: entry.checkedAt, now: now)
            case .live:
                // An answer to a question asked before this replica revoked the user is stale on arrival.
                guard !Self.isForgotten(entry.uid, checkedAt: entry.checkedAt, in: state, now: now) else { return }
                state.live.store(entry.uid, for: key, storedAt: entry.checkedAt, now: now)
            }
        }
    }

    private static func isForgotten(_ uid: String, checkedAt: Date, in state: State, now: Date) -> Bool {
        guard let forgotten = state.forgotten.entry(uid, now: now) else { return false }
        return checkedAt <= forgotten.storedAt
    }
}
