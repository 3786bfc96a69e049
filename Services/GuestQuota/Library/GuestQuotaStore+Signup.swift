import Foundation
import FoyerAPI
import FoyerStorage
import SQLKit

extension GuestQuotaStore {
    /// Admits a guest sign-up from `source` if the live-guest cap has room and the source's token bucket holds a
    /// token, taking it. The bucket lives in the database, so replicas share it. A refusal is counted as a
    /// `signup` denial for `stats`.
    func admitSignup(source: SignupSource, opening uid: String? = nil) async throws -> AdmitSignupResponse {
        let answer = try await countingDenials(as: Self.signupDenialKind, [.signupRateLimited, .guestCapReached]) {
            try await admitOnce(source: source, opening: uid)
        }
        await maintainOccasionally()
        return answer
    }

    /// The transaction of `admitSignup`: a token from the source's bucket and, for an IPv6 source, one from its /48's
    /// (a refusal by either takes neither, the transaction rolls back), and with `uid` the guest's account opened on
    /// the guest plan, its place under the cap taken in the same commit.
    private func admitOnce(source: SignupSource, opening uid: String?) async throws -> AdmitSignupResponse {
        let now = configuration.now()
        return try await write { sql -> AdmitSignupResponse in
            let live = try await liveGuests(sql)
            reportLiveGuests(live)
            guard live < configuration.liveGuestsMax else { throw try await guestCapReached(sql) }
            var remaining = try await takeToken(
                sql,
                bucket: source.bucketKey,
                burst: Double(configuration.signupBurstPerSource),
                perHour: Double(configuration.signupsPerSourcePerHour),
                now: now
            )
            if let network = source.networkBucketKey {
                let left = try await takeToken(
                    sql,
                    bucket: network,
                    burst: Double(configuration.signupBurstPerNetwork),
                    perHour: Double(configuration.signupsPerNetworkPerHour),
                    now: now
                )
                remaining = min(remaining, left)
            }
            if let uid {
                _ = try await openedAccount(sql, uid: uid, now: now)
            }
            return AdmitSignupResponse(
                remainingForSource: UInt64(max(0, remaining.rounded(.down))),
                liveGuests: UInt64(max(0, live)),
                liveGuestsMax: UInt64(configuration.liveGuestsMax)
            )
        }
    }

    /// Takes a token from the bucket `bucket` (made full if missing), refilled at `perHour` up to `burst`; the
    /// tokens left, or `signup-rate-limited` with the time until the next one.
    private func takeToken(
        _ sql: any SQLDatabase,
        bucket: String,
        burst: Double,
        perHour: Double,
        now: Date
    ) async throws -> Double {
        try await sql.raw(
            """
            INSERT INTO gq_signup_buckets (source, tokens, updated_at)
            VALUES (\(bind: bucket), \(bind: burst), \(SQLTimestamp(now)))
            ON CONFLICT (source) DO NOTHING
            """
        ).run()
        guard
            let row = try await sql.raw(
                """
                SELECT tokens, updated_at FROM gq_signup_buckets
                WHERE source = \(bind: bucket)\(forUpdate(sql))
                """
            ).first()
        else { throw GuestQuotaError.invalidArgument("sign-up bucket vanished") }
        // In integer microseconds and tokens per hour, so that round numbers stay exact.
        let stored = try row.decode(column: "tokens", as: Double.self)
        let elapsed = max(0, now.databaseMicroseconds - (try row.decode(column: "updated_at", as: Int64.self)))
        let tokens = min(burst, stored + Double(elapsed) * perHour / 3_600_000_000)
        guard tokens >= 1 else {
            let milliseconds = ((1 - tokens) * 3_600_000 / perHour - 1e-6).rounded(.up)
            throw GuestQuotaError.signupRateLimited(retryAfterMilliseconds: UInt32(clamping: Int64(milliseconds)))
        }
        try await sql.raw(
            """
            UPDATE gq_signup_buckets SET tokens = \(bind: tokens - 1), updated_at = \(SQLTimestamp(now))
            WHERE source = \(bind: bucket)
            """
        ).run()
        return tokens - 1
    }

    /// Sets the live-guest gauges and, once `live` passes `liveGuestsWarningFraction` of the cap, logs a warning at
    /// most once per `liveGuestsWarningInterval`.
    func reportLiveGuests(_ live: Int64) {
        let cap = configuration.liveGuestsMax
        GuestQuotaMetrics.liveGuests(live, of: cap)
        guard Double(live) >= configuration.liveGuestsWarningFraction * Double(cap) else { return }
        let now = configuration.now()
        let due = liveGuestsWarnedAt.withLock { last in
            if let previous = last, now < previous.addingTimeInterval(Self.liveGuestsWarningInterval) { return false }
            last = now
            return true
        }
        guard due else { return }
        logger.warning(
            "live guests near the cap: new guests are refused once it is reached",
            metadata: ["guests.live": "\(live)", "guests.max": "\(cap)"]
        )
    }
}
