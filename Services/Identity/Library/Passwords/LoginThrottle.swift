import Foundation
import FoyerStorage
import SQLKit

/// The failed-attempt limits of password checks, in `identity_login_failures`: one count per email address (known
/// or not) and client source, and one per address across all sources.
///
/// An attempt is counted as a failure *before* the password is checked (so concurrent guesses cannot all slip
/// through under the limit). Each count has its own free attempts (`freeAttempts` per source,
/// `perAddressFreeAttempts` across sources); past them each attempt makes the next one wait: `initialDelay`,
/// doubling, at most `maximumDelay`. A count is forgotten `resetAfter` after its last failure.
///
/// Keyed by source, one host's failures delay only that host: an attacker guessing from one place cannot lock the
/// owner out of the password path. The per-source wait applies before the password is checked. The per-address
/// count is there for guessing spread over many sources, and it does not stop the right password: while the
/// address waits, a password is still checked, the right one signs in and a wrong one answers `too-many-attempts`
/// with the wait (`Claim.addressWait`). What bounds guessing across sources is `perAddressFailuresMax`: once the
/// address's count reaches it, attempts from sources not trusted for the address are refused before any check,
/// until the count is forgotten. A source is trusted for an address for `resetAfter` after it gave the right
/// password for it (a row keyed by `trustKey`): its attempts neither count on the address nor wait for it.
/// A right password clears its source's count and takes its own attempt back from the address's count (the other
/// sources' failures stay counted).
struct LoginThrottle: Sendable {
    let policy: FailedLoginPolicy
    /// The service's clock (`IdentityConfiguration.now`), for when a success is recorded.
    let clock: @Sendable () -> Date

    /// One row: where it is kept and how many attempts it lets through before delays start.
    private struct Count {
        let key: [UInt8]
        let freeAttempts: Int
    }

    /// What counting an attempt found: how long the address as a whole waits, if it does (a wrong password then
    /// answers `too-many-attempts` with this wait rather than `invalid-credentials`).
    struct Claim: Sendable {
        var addressWait: Duration?

        /// The error for a wrong password: `otherwise`, or `too-many-attempts` with the wait while the address waits.
        func wrongPassword(_ otherwise: IdentityError) -> IdentityError {
            addressWait.map { IdentityError.tooManyAttempts(retryAfter: $0) } ?? otherwise
        }
    }

    /// Counts an attempt on `email` from `source`, or throws `too-many-attempts` (with the wait) if that source is
    /// waiting, or if the address has reached `perAddressFailuresMax` and the source is not trusted for it.
    @discardableResult
    func claimAttempt(
        _ sql: any SQLDatabase,
        email: EmailAddress,
        source: ClientSource,
        now: Date
    ) async throws
        -> Claim
    {
        let address = Self.emailHash(email)
        let perSource = Count(key: Self.sourceKey(email, source), freeAttempts: policy.freeAttempts)
        let failures = try await failuresSoFar(sql, key: perSource.key, address: address, now: now).failures + 1
        try await record(sql, perSource, failures: failures, now: now)
        guard try await !isTrusted(sql, email: email, source: source, now: now) else { return Claim() }
        let perAddress = Count(key: address, freeAttempts: policy.perAddressFreeAttempts)
        let (counted, blockedUntil) = try await failuresSoFar(sql, key: address, address: address, now: now)
        if counted >= Int64(policy.perAddressFailuresMax) {
            throw IdentityError.tooManyAttempts(retryAfter: Self.waitMilliseconds(until: blockedUntil, now: now))
        }
        try await record(sql, perAddress, failures: counted + 1, now: now)
        guard now < blockedUntil else { return Claim() }
        return Claim(addressWait: Self.waitMilliseconds(until: blockedUntil, now: now))
    }

    /// Stores `failures` on `count`, with the wait they set.
    private func record(_ sql: any SQLDatabase, _ count: Count, failures: Int64, now: Date) async throws {
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

    /// The password was right: this source starts afresh and is trusted for the address for `resetAfter`, and the
    /// address's count forgets this attempt if it counted it (a trusted source's attempts are not counted there).
    func succeeded(_ sql: any SQLDatabase, email: EmailAddress, source: ClientSource) async throws {
        let now = clock()
        let address = Self.emailHash(email)
        try await sql.raw(
            "DELETE FROM identity_login_failures WHERE email_hash = \(SQLBytes(Self.sourceKey(email, source)))"
        ).run()
        let wasTrusted = try await isTrusted(sql, email: email, source: source, now: now)
        let trust = SQLBytes(Self.trustKey(email, source))
        let never = SQLTimestamp(Self.never)
        try await sql.raw(
            """
            INSERT INTO identity_login_failures (email_hash, failures, last_failure_at, blocked_until, address_hash)
            VALUES (\(trust), 0, \(SQLTimestamp(now)), \(never), \(SQLBytes(address)))
            ON CONFLICT (email_hash) DO UPDATE SET last_failure_at = \(SQLTimestamp(now))
            """
        ).run()
        guard !wasTrusted else { return }
        try await sql.raw(
            """
            UPDATE identity_login_failures SET failures = failures - 1
            WHERE email_hash = \(SQLBytes(address)) AND failures > 0
            """
        ).run()
    }

    /// Whether `source` gave the right password for `email` within `resetAfter` (the janitor prunes the row then).
    private func isTrusted(
        _ sql: any SQLDatabase,
        email: EmailAddress,
        source: ClientSource,
        now: Date
    )
        async throws -> Bool
    {
        let row = try await sql.raw(
            """
            SELECT last_failure_at FROM identity_login_failures
            WHERE email_hash = \(SQLBytes(Self.trustKey(email, source)))
            """
        ).first()
        guard let row else { return false }
        return now < (try row.decodeDate(column: "last_failure_at")).adding(policy.resetAfter)
    }

    private static func waitMilliseconds(until blockedUntil: Date, now: Date) -> Duration {
        .milliseconds(Swift.max(1, Int64((blockedUntil.timeIntervalSince(now) * 1000).rounded(.up))))
    }

    /// The failures counted on `key` that still count and the time its wait ends, with the row locked (made first
    /// if missing, so concurrent attempts queue on it); throws if a per-source key is waiting (the address's own
    /// key, `address`, does not stop an attempt by its wait). `address` is kept on every row so that deleting the
    /// user finds all of them.
    private func failuresSoFar(
        _ sql: any SQLDatabase,
        key: [UInt8],
        address: [UInt8],
        now: Date
    ) async throws -> (failures: Int64, blockedUntil: Date) {
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
        if key != address, now < blockedUntil {
            throw IdentityError.tooManyAttempts(retryAfter: Self.waitMilliseconds(until: blockedUntil, now: now))
        }
        let lastFailure = try row.decodeDate(column: "last_failure_at")
        guard now < lastFailure.adding(policy.resetAfter) else { return (0, Self.never) }
        return (try row.decode(column: "failures", as: Int64.self), blockedUntil)
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

    /// The row that trusts `source` for an address after a right password (internal callers share one).
    static func trustKey(_ email: EmailAddress, _ source: ClientSource) -> [UInt8] {
        Identifiers.digest("login-trusted", (source.key ?? "") + "\n" + email.value)
    }

    /// The count of an address from one source (internal callers share one).
    static func sourceKey(_ email: EmailAddress, _ source: ClientSource) -> [UInt8] {
        Identifiers.digest("login-source", (source.key ?? "") + "\n" + email.value)
    }
}
