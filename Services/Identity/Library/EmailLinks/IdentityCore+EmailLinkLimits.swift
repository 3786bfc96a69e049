import Foundation
import FoyerStorage
import SQLKit

extension IdentityCore {
    /// The limits on sending email links, counted on the links sent (`identity_email_links`, so across replicas):
    /// per client source (`perSourceMax`, not for internal callers), per address (`perAddressMax`) and for the
    /// whole service (`globalMax`). Throws `too-many-attempts` with the time until the window lets one more through.
    /// None of them depends on the address having an account.
    ///
    /// Call inside the transaction that inserts the link. On PostgreSQL it first takes a transaction-scoped advisory
    /// lock, so concurrent requests are counted one after the other and cannot all slip under a limit together
    /// (SQLite's `BEGIN IMMEDIATE` already does that); links are few (at most `globalMax` per window), so queueing
    /// them costs nothing that matters.
    func checkEmailLinkLimits(
        _ sql: any SQLDatabase,
        email: EmailAddress,
        source: ClientSource,
        now: Date
    ) async throws {
        let settings = configuration.emailLink
        if sql.engineKind == .postgres {
            try await sql.raw("SELECT pg_advisory_xact_lock(\(bind: Self.emailLinkLockKey))").run()
        }
        if let sourceHash = EmailLinkRecords.sourceHash(source) {
            let since = now.subtracting(settings.perSourceWindow)
            try refuseOver(
                try await EmailLinkRecords.recent(sql, sourceHash: sourceHash, since: since),
                max: settings.perSourceMax,
                window: settings.perSourceWindow,
                now: now,
                "too many links asked for from this network address; try again later"
            )
        }
        try refuseOver(
            try await EmailLinkRecords.recent(sql, email: email, since: now.subtracting(settings.perAddressWindow)),
            max: settings.perAddressMax,
            window: settings.perAddressWindow,
            now: now,
            "too many links sent to this address; try again later"
        )
        try refuseOver(
            try await EmailLinkRecords.recentInAll(sql, since: now.subtracting(settings.globalWindow)),
            max: settings.globalMax,
            window: settings.globalWindow,
            now: now,
            "the service has sent as many links as it may for now; try again later"
        )
    }

    /// The advisory-lock key that queues the link limits' counting on PostgreSQL ("foyer-el").
    private static let emailLinkLockKey: Int64 = 0x666F_7965_722D_656C

    private func refuseOver(
        _ counted: (sent: Int, oldest: Date?),
        max: Int,
        window: Duration,
        now: Date,
        _ message: String
    ) throws {
        guard counted.sent >= max else { return }
        let reopens = (counted.oldest ?? now).adding(window)
        throw IdentityError.tooManyAttempts(
            retryAfter: .milliseconds(Int64(Swift.max(1, reopens.timeIntervalSince(now) * 1000))),
            message
        )
    }
}

extension EmailLinkSettings {
    /// How long sent links are kept: the longest of the windows the limits count over, and the links' lifetime.
    var countedWindow: Duration { max(lifetime, perAddressWindow, perSourceWindow, globalWindow) }
}
