import Foundation
import FoyerAPI
import FoyerStorage
import SQLKit

extension GuestQuotaStore {
    /// Admits a guest sign-up from `source` if the live-guest cap has room and the source's token bucket holds a
    /// token, taking it. The bucket lives in the database, so replicas share it. A refusal is counted as a
    /// `signup` denial for `stats`.
    func admitSignup(source: SignupSource) async throws -> AdmitSignupResponse {
        let answer = try await countingDenials(as: Self.signupDenialKind, [.signupRateLimited, .guestCapReached]) {
            try await admitOnce(source: source)
        }
        await maintainOccasionally()
        return answer
    }

    /// The transaction of `admitSignup`.
    private func admitOnce(source: SignupSource) async throws -> AdmitSignupResponse {
        let now = configuration.now()
        let burst = Double(configuration.signupBurstPerSource)
        let perHour = Double(configuration.signupsPerSourcePerHour)
        return try await write { sql -> AdmitSignupResponse in
            let live = try await liveGuests(sql)
            guard live < configuration.liveGuestsMax else { throw try await guestCapReached(sql) }
            try await sql.raw(
                """
                INSERT INTO gq_signup_buckets (source, tokens, updated_at)
                VALUES (\(bind: source.bucketKey), \(bind: burst), \(SQLTimestamp(now)))
                ON CONFLICT (source) DO NOTHING
                """
            ).run()
            guard
                let row = try await sql.raw(
                    """
                    SELECT tokens, updated_at FROM gq_signup_buckets
                    WHERE source = \(bind: source.bucketKey)\(forUpdate(sql))
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
                WHERE source = \(bind: source.bucketKey)
                """
            ).run()
            return AdmitSignupResponse(
                remainingForSource: UInt64(max(0, (tokens - 1).rounded(.down))),
                liveGuests: UInt64(max(0, live)),
                liveGuestsMax: UInt64(configuration.liveGuestsMax)
            )
        }
    }
}
