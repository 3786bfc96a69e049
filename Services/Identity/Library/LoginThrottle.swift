import Foundation
import FoyerStorage
import SQLKit

/// The failed-attempt limit of password checks, per email address (known or not), in
/// `identity_login_failures`.
///
/// An attempt is counted as a failure *before* the password is checked (so concurrent guesses cannot all slip
/// through under the limit) and the count is cleared when the password turns out right. After
/// `freeAttempts`, each attempt makes the next one wait: `initialDelay`, doubling, at most `maximumDelay`. The
/// count is forgotten `resetAfter` after the last failure.
struct LoginThrottle: Sendable {
    let policy: FailedLoginPolicy

    /// Counts an attempt for `emailHash`, or throws `too-many-attempts` (with the wait) if the address is waiting.
    func claimAttempt(_ sql: any SQLDatabase, emailHash: [UInt8], now: Date) async throws {
        let row = try await sql.raw(
            """
            SELECT failures, last_failure_at, blocked_until FROM identity_login_failures
            WHERE email_hash = \(SQLBytes(emailHash))\(unsafeRaw: sql.lockClause)
            """
        ).first()
        var failures: Int64 = 0
        if let row {
            let blockedUntil = try row.decodeDate(column: "blocked_until")
            if now < blockedUntil {
                throw IdentityError.tooManyAttempts(
                    retryAfter: .milliseconds(Int64((blockedUntil.timeIntervalSince(now) * 1000).rounded(.up)))
                )
            }
            let lastFailure = try row.decodeDate(column: "last_failure_at")
            if now < lastFailure.adding(policy.resetAfter) {
                failures = try row.decode(column: "failures", as: Int64.self)
            }
        }
        failures += 1
        let blockedUntil = now.adding(delay(afterFailures: failures))
        try await sql.raw(
            """
            INSERT INTO identity_login_failures (email_hash, failures, last_failure_at, blocked_until)
            VALUES (\(SQLBytes(emailHash)), \(bind: failures), \(SQLTimestamp(now)), \(SQLTimestamp(blockedUntil)))
            ON CONFLICT (email_hash) DO UPDATE SET failures = excluded.failures,
                last_failure_at = excluded.last_failure_at, blocked_until = excluded.blocked_until
            """
        ).run()
    }

    /// The password was right: the address starts afresh.
    func clear(_ sql: any SQLDatabase, emailHash: [UInt8]) async throws {
        try await sql.raw("DELETE FROM identity_login_failures WHERE email_hash = \(SQLBytes(emailHash))").run()
    }

    /// The wait imposed after `failures` consecutive failures.
    func delay(afterFailures failures: Int64) -> Duration {
        let over = failures - Int64(policy.freeAttempts)
        guard over > 0 else { return .zero }
        let doublings = min(over - 1, 40)
        let seconds = policy.initialDelay.timeInterval * pow(2, Double(doublings))
        return min(.milliseconds(Int64(seconds * 1000)), policy.maximumDelay)
    }

    static func emailHash(_ email: EmailAddress) -> [UInt8] {
        Identifiers.digest("login", email.value)
    }
}
