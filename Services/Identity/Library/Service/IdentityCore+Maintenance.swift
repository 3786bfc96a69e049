import Foundation
import FoyerStorage
import SQLKit

extension IdentityCore {
    /// One round of pruning, each table in its own short transaction and at most `maintenanceBatchSize` rows:
    /// sessions past their absolute or idle expiry (or revoked a day ago) with their refresh tokens, email links
    /// past the limits' windows, outbox messages past their retention (they hold addresses), nonces and device-key challenges past their
    /// token's expiry, tickets a day past theirs, guest keys past their window, stale failed-attempt counts,
    /// finished operations a week old, the gateways' operation answers once expired, events past their retention, admin keys 90 days after their revocation,
    /// audit entries after 400 days, and signing keys no token can need. The signing key is rotated when the newest is older than
    /// `signingKeyRotationInterval` (once, however many replicas run this at once). Then the signing keys are
    /// reloaded if due (a rotation on another replica).
    func runMaintenance() async throws {
        let now = self.now
        let batch = configuration.maintenanceBatchSize
        let day = Duration.seconds(86_400)
        let idleCutoff = SQLTimestamp(now.subtracting(configuration.refreshIdleTimeout))
        let revokedCutoff = SQLTimestamp(now.subtracting(day))
        try await database.transaction { sql in
            let expired = try await sql.raw(
                """
                SELECT id FROM identity_sessions
                WHERE absolute_expires_at < \(SQLTimestamp(now)) OR last_used_at < \(idleCutoff)
                    OR revoked_at < \(revokedCutoff)
                LIMIT \(bind: batch)
                """
            ).all().map { try $0.decode(column: "id", as: String.self) }
            guard !expired.isEmpty else { return }
            try await sql.raw("DELETE FROM identity_refresh_tokens WHERE session_id IN (\(binds: expired))").run()
            try await sql.raw("DELETE FROM identity_sessions WHERE id IN (\(binds: expired))").run()
        }
        let linkCutoff = now.subtracting(configuration.emailLink.countedWindow)
        try await prune(
            "identity_email_links",
            key: "token_hash",
            where: "created_at",
            before: linkCutoff,
            batch: batch
        )
        try await prune(
            "identity_outbox",
            key: "id",
            where: "created_at",
            before: now.subtracting(configuration.emailLink.outboxRetention),
            batch: batch
        )
        try await prune("identity_used_nonces", key: "nonce_hash", where: "expires_at", before: now, batch: batch)
        try await prune(
            "identity_device_key_challenges",
            key: "challenge_hash",
            where: "expires_at",
            before: now,
            batch: batch
        )
        try await prune(
            "identity_conflict_tickets",
            key: "ticket_hash",
            where: "expires_at",
            before: now.subtracting(day),
            batch: batch
        )
        try await prune(
            "identity_guest_keys",
            key: "key_hash",
            where: "created_at",
            before: now.subtracting(configuration.guestIdempotencyWindow),
            batch: batch
        )
        try await prune(
            "identity_login_failures",
            key: "email_hash",
            where: "last_failure_at",
            before: now.subtracting(configuration.failedLogins.resetAfter),
            batch: batch
        )
        try await database.transaction { sql in
            try await UserDeletion.pruneFinished(
                sql,
                before: now.subtracting(UserDeletion.finishedOperationRetention),
                limit: batch
            )
        }
        try await prune(
            "identity_events",
            key: "position",
            where: "occurred_at",
            before: now.subtracting(configuration.eventRetention),
            batch: batch
        )
        try await prune(
            "identity_operation_answers",
            key: "id",
            where: "expires_at",
            before: now,
            batch: batch
        )
        try await prune(
            "identity_admin_actions",
            key: "id",
            where: "at",
            before: now.subtracting(AdminActionRecords.retention),
            batch: batch
        )
        try await database.transaction { sql in
            try await AdminKeyRecords.pruneRevoked(
                sql,
                before: now.subtracting(AdminKeyRecords.revokedRetention),
                limit: batch
            )
        }
        if let interval = configuration.signingKeyRotationInterval,
            let keyID = try await keys.rotateIfDue(database, now: now, interval: interval)
        {
            logger.notice("signing key rotated on schedule", metadata: ["key.id": "\(keyID)"])
        }
        try await database.transaction { sql in try await self.keys.pruneRetired(sql, now: now) }
        try await keys.reloadIfDue(database, now: now)
    }

    private func prune(
        _ table: String,
        key: String,
        where column: String,
        before cutoff: Date,
        batch: Int
    )
        async throws
    {
        try await database.transaction { sql in
            try await sql.raw(
                """
                DELETE FROM \(ident: table) WHERE \(ident: key) IN (
                    SELECT \(ident: key) FROM \(ident: table) WHERE \(ident: column) < \(SQLTimestamp(cutoff))
                    LIMIT \(bind: batch))
                """
            ).run()
        }
    }
}
