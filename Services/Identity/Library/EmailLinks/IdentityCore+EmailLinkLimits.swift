import Foundation
import FoyerStorage
import SQLKit

extension IdentityCore {
    /// The limits on sending email links, counted on the links sent (`identity_email_links`, so across replicas).
    /// Throws `too-many-attempts` with the time until the window lets one more through.
    ///
    /// - Per client source (`perSourceMax`, not for internal callers; IPv6 counts per /48, `ClientSource`).
    /// - Per address: password resets (`passwordReset`) against `perAddressResetMax`, every other kind against
    ///   `perAddressMax`, each counting only its own links, so anonymous reset requests cannot spend the links the
    ///   owner needs to sign in. Known and unknown addresses are counted alike.
    /// - For the whole service, in three steps (`globalMax`, `globalReserve`, `pastGlobalMax`,
    ///   `perSourcePastGlobalMax`): the first `globalMax - globalReserve` links of a window go to anyone; the
    ///   reserve up to `globalMax` only to links for an address an account holds (`identity_emails`) and to
    ///   password resets; past that share, a client source that asked for fewer than `perSourcePastGlobalMax`
    ///   links in the window still gets one, until `globalMax + pastGlobalMax` links in all. A request the reserve
    ///   does not admit is treated exactly as one past `globalMax`: the same allowance, the same refusal, the same
    ///   wait, so the answer depends on the address being known only while the unreserved share is spent, and then
    ///   only for a source that has used its allowance (docs/DECISIONS.md).
    ///
    /// Call inside the transaction that inserts the link. On PostgreSQL it first takes a transaction-scoped advisory
    /// lock, so concurrent requests are counted one after the other and cannot all slip under a limit together
    /// (SQLite's `BEGIN IMMEDIATE` already does that); links are few (at most `globalMax + pastGlobalMax` per
    /// window), so queueing them costs nothing that matters.
    func checkEmailLinkLimits(
        _ sql: any SQLDatabase,
        email: EmailAddress,
        source: ClientSource,
        now: Date,
        passwordReset: Bool = false
    ) async throws {
        let settings = configuration.emailLink
        if sql.engineKind == .postgres {
            try await sql.raw("SELECT pg_advisory_xact_lock(\(bind: Self.emailLinkLockKey))").run()
        }
        let sourceHash = EmailLinkRecords.sourceHash(source)
        if let sourceHash {
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
            try await recentToAddress(
                sql,
                email: email,
                resets: passwordReset,
                since: now.subtracting(settings.perAddressWindow)
            ),
            max: passwordReset ? settings.perAddressResetMax : settings.perAddressMax,
            window: settings.perAddressWindow,
            now: now,
            "too many links sent to this address; try again later"
        )
        try await checkGlobalLimit(sql, email: email, sourceHash: sourceHash, passwordReset: passwordReset, now: now)
    }

    /// The service-wide steps of `checkEmailLinkLimits`.
    private func checkGlobalLimit(
        _ sql: any SQLDatabase,
        email: EmailAddress,
        sourceHash: [UInt8]?,
        passwordReset: Bool,
        now: Date
    ) async throws {
        let settings = configuration.emailLink
        let since = now.subtracting(settings.globalWindow)
        let inAll = try await EmailLinkRecords.recentInAll(sql, since: since)
        if inAll.0 < settings.globalMax - settings.globalReserve { return }
        if inAll.0 < settings.globalMax {
            if passwordReset { return }
            if try await EmailRecords.load(sql, email: email) != nil { return }
        }
        if let sourceHash, inAll.0 < settings.globalMax + settings.pastGlobalMax {
            let fromSource = try await EmailLinkRecords.recent(sql, sourceHash: sourceHash, since: since)
            if fromSource.0 < settings.perSourcePastGlobalMax { return }
        }
        try refuseOver(
            inAll,
            max: 0,
            window: settings.globalWindow,
            now: now,
            "the service has sent as many links as it may for now; try again later"
        )
    }

    /// How many links of the per-address count `resets` picks (password resets, or every other kind) were sent to
    /// the address since `since`, and when the oldest of them was.
    private func recentToAddress(
        _ sql: any SQLDatabase,
        email: EmailAddress,
        resets: Bool,
        since: Date
    ) async throws -> (Int, Date?) {
        let reset = EmailLinkKind.passwordReset.text
        let row = try await sql.raw(
            """
            SELECT COUNT(*) AS sent, MIN(created_at) AS oldest FROM identity_email_links
            WHERE email = \(bind: email.value) AND created_at >= \(SQLTimestamp(since))
                AND purpose \(unsafeRaw: resets ? "=" : "<>") \(bind: reset)
            """
        ).first()
        guard let row else { return (0, nil) }
        return (try row.decode(column: "sent", as: Int.self), try row.decodeOptionalDate(column: "oldest"))
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
