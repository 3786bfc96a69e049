import Foundation
import FoyerStorage
import SQLKit

/// The failed-attempt limits of password checks, in `identity_login_failures`: one count per email address (known
/// or not) and client source, and a much higher one per address across all sources.
///
/// An attempt is counted as a failure *before* the password is checked (so concurrent guesses cannot all slip
/// through under the limit). Each count has its own free attempts (`freeAttempts` per source,
/// `perAddressFreeAttempts` across sources); past them each attempt makes the next one wait: `initialDelay`,
/// doubling, at most `maximumDelay`. A count is forgotten `resetAfter` after its last failure.
///
/// Keyed by source, one host's failures delay only that host: an attacker guessing from one place cannot lock the
/// owner out of the password path. The per-address count is there for guessing spread over many sources. A right
/// password clears its source's count and takes its own attempt back from the address's count, with the wait that
/// attempt set (the other sources' failures stay counted).
struct LoginThrottle: Sendable {
    let policy: FailedLoginPolicy

    /// One row: where it is kept and how many attempts it lets through before delays start.
    private struct Count {
        let key: [UInt8]
        let freeAttempts: Int
    }

    /// Counts an attempt on `email` from `source`, or throws `too-many-attempts` (with the wait) if that source, or
    /// the address as a whole, is waiting.
    func claimAttempt(_ sql: any SQLDatabase, email: EmailAddress, source: ClientSource, now: Date) async throws {
        let counts = [
            Count(key: Self.sourceKey(email, source), freeAttempts: policy.freeAttempts),
            Count(key: Self.emailHash(email), freeAttempts: policy.perAddressFreeAttempts),
        ]
        var failures: [Int64] = []
        for count in counts {
            failures.append(try await failuresSoFar(sql, key: count.key, address: counts[1].key, now: now) + 1)
        }
        for (count, failures) in zip(counts, failures) {
            let wait = delay(afterFailures: failures, freeAttempts: count.freeAttempts)
            let blockedUntil = wait > .zero ? now.adding(wait) : Self.never
            try await sql.raw(
                """
                UPDATE identity_login_failures SET failures = \(bind: failures),
                    last_failure_at = \(SQLTimestamp(now)), blocked_until = \(SQLTimestamp(blockedUntil))
                WHERE email_hash = \(SQLBytes(count.key))
                """
            ).run()
        }
    }

    /// The password was right: this source starts afresh, and the address's count forgets this attempt (the attempt
    /// was let through, so the address was not waiting before it: the wait it set goes too).
    func succeeded(_ sql: any SQLDatabase, email: EmailAddress, source: ClientSource) async throws {
        try await sql.raw(
            "DELETE FROM identity_login_failures WHERE email_hash = \(SQLBytes(Self.sourceKey(email, source)))"
        ).run()
        try await sql.raw(
            """
            UPDATE identity_login_failures SET failures = failures - 1, blocked_until = \(SQLTimestamp(Self.never))
            WHERE email_hash = \(SQLBytes(Self.emailHash(email))) AND failures > 0
            """
        ).run()
    }

    /// The failures counted on `key` that still count, with the row locked (made first if missing, so concurrent
    /// attempts queue on it); throws if the key is waiting. `address` is the address's own key, kept on every row
    /// so that deleting the user finds all of them.
    private func failuresSoFar(
        _ sql: any SQLDatabase,
        key: [UInt8],
        address: [UInt8],
        now: Date
    ) async throws -> Int64 {
        let never = SQLTimestamp(Self.never)
        try await sql.raw(
            """
            INSERT INTO identity_login_failures (email_hash, failures, last_failure_at, blocked_until, address_hash)
            VALUES (\(SQLBytes(key)), 0, \(never), \(never), \(SQLBytes(address)))
            ON CONFLICT (email_hash) DO NOTHING
            """
        ).run()
        guard
            let row = try await sql.raw(
                """
                SELECT failures, last_failure_at, blocked_until FROM identity_login_failures
                WHERE email_hash = \(SQLBytes(key))\(unsafeRaw: sql.lockClause)
                """
            ).first()
        else { throw IdentityStoreError("a failed-login count vanished inside its transaction") }
        let blockedUntil = try row.decodeDate(column: "blocked_until")
        if now < blockedUntil {
            throw IdentityError.tooManyAttempts(
                retryAfter: .milliseconds(Int64((blockedUntil.timeIntervalSince(now) * 1000).rounded(.up)))
            )
        }
        let lastFailure = try row.decodeDate(column: "last_failure_at")
        guard now < lastFailure.adding(policy.resetAfter) else { return 0 }
        return try row.decode(column: "failures", as: Int64.self)
    }

    /// `blocked_until` when there is no wait: the epoch, not `now`, because a stored time is rounded to the
    /// microsecond and could read back as later than the `now` it was made from.
    private static let never = Date(timeIntervalSince1970: 0)

    /// The wait imposed after `failures` consecutive failures on a count with `freeAttempts` free ones.
    func delay(afterFailures failures: Int64, freeAttempts: Int) -> Duration {
        let over = failures - Int64(freeAttempts)
        guard over > 0 else { return .zero }
        let doublings = min(over - 1, 40)
        let seconds = policy.initialDelay.timeInterval * pow(2, Double(doublings))
        return min(.milliseconds(Int64(seconds * 1000)), policy.maximumDelay)
    }

    /// The count of an address across all sources (the key the per-address limit has always had), and the
    /// `address_hash` of every count of that address (per source too), by which deleting a user removes them.
    static func emailHash(_ email: EmailAddress) -> [UInt8] {
        Identifiers.digest("login", email.value)
    }

    /// The count of an address from one source (internal callers share one).
    static func sourceKey(_ email: EmailAddress, _ source: ClientSource) -> [UInt8] {
        Identifiers.digest("login-source", (source.key ?? "") + "\n" + email.value)
    }
}
