import Foundation
import FoyerAPI
import FoyerRPC
import FoyerStorage
import SQLKit

extension IdentityCore {
    /// `createGuest`: a new guest and its first session; the same guest again for the same idempotency key. A new
    /// guest takes the uid the request proposes (the gateway opened its quota account under it at admission), else
    /// a fresh one.
    ///
    /// The key (checked by `CreateGuestRequest` for the form of 128 random bits) is claimed with an insert that does
    /// nothing on conflict, before the guest is created, so two concurrent calls with one key create one guest:
    /// the second waits for the first (PostgreSQL's unique index; SQLite's single writer) and then replays it. A
    /// replay starts a new session of the guest beside the ones the key made before, which stay live: a replay
    /// cannot tell a lost response from a concurrent client that holds the same key, and revoking would sign the
    /// first client out. One key makes at most `guestKeySessionsMax` sessions; a replay beyond that is refused
    /// with `idempotency-key-reused`.
    func createGuest(_ request: CreateGuestRequest) async throws -> SessionTokens {
        let now = self.now
        let keyHash = Identifiers.digest("guest-key", request.idempotencyKey)
        let windowStart = now.subtracting(configuration.guestIdempotencyWindow)
        let (tokens, created) = try await database.transaction { sql in
            let uid = request.uid ?? Identifiers.newUID()
            let sessionID = Identifiers.newSessionID()
            var claimed = try await self.claimGuestKey(sql, keyHash: keyHash, uid: uid, sessionID: sessionID, now: now)
            if !claimed, try await self.forgetGuestKey(sql, keyHash: keyHash, before: windowStart) {
                // A key older than the window is forgotten: it starts a new guest.
                claimed = try await self.claimGuestKey(sql, keyHash: keyHash, uid: uid, sessionID: sessionID, now: now)
            }
            guard claimed else { return (try await self.replayGuest(sql, keyHash: keyHash, now: now), false) }
            try await UserRecords.insert(sql, uid: uid, isAnonymous: true, now: now)
            try await self.recordCreated(sql, uid: uid, isAnonymous: true, method: "guest", now: now)
            let tokens = try await self.startSession(
                sql,
                uid: uid,
                isAnonymous: true,
                now: now,
                sessionID: sessionID,
                grants: UserGrants.none
            )
            return (tokens, true)
        }
        if created { IdentityMetrics.signedUp(.guest) }
        logger.info("guest created", metadata: ["user.uid": "\(tokens.uid)"])
        return tokens
    }

    /// Inserts the key's row unless the key is taken. Returns whether it was inserted.
    private func claimGuestKey(
        _ sql: any SQLDatabase,
        keyHash: [UInt8],
        uid: String,
        sessionID: String,
        now: Date
    ) async throws -> Bool {
        try await !sql.raw(
            """
            INSERT INTO identity_guest_keys (key_hash, uid, session_id, created_at)
            VALUES (\(SQLBytes(keyHash)), \(bind: uid), \(bind: sessionID), \(SQLTimestamp(now)))
            ON CONFLICT (key_hash) DO NOTHING
            RETURNING uid
            """
        ).all().isEmpty
    }

    /// Deletes the key's row if it was made before `cutoff`. Returns whether it did.
    private func forgetGuestKey(_ sql: any SQLDatabase, keyHash: [UInt8], before cutoff: Date) async throws -> Bool {
        try await !sql.raw(
            """
            DELETE FROM identity_guest_keys
            WHERE key_hash = \(SQLBytes(keyHash)) AND created_at < \(SQLTimestamp(cutoff))
            RETURNING uid
            """
        ).all().isEmpty
    }

    /// A new session of the guest the key created, unless the guest is gone or permanent or the key has made its
    /// `guestKeySessionsMax` sessions (`idempotency-key-reused` for all three). Sessions made before stay live.
    private func replayGuest(_ sql: any SQLDatabase, keyHash: [UInt8], now: Date) async throws -> SessionTokens {
        guard
            let row = try await sql.raw(
                """
                SELECT uid, sessions_created FROM identity_guest_keys
                WHERE key_hash = \(SQLBytes(keyHash))\(unsafeRaw: sql.lockClause)
                """
            ).first()
        else {
            // Deleted between our insert and this read (a concurrent window expiry): the caller may retry.
            throw IdentityError.changedConcurrently("the idempotency key changed concurrently; try again")
        }
        let uid = try row.decode(column: "uid", as: String.self)
        let sessionsCreated = try row.decode(column: "sessions_created", as: Int64.self)
        guard let user = try await UserRecords.load(sql, uid: uid, lock: true), user.isAnonymous,
            user.state == .active
        else {
            throw IdentityError.idempotencyKeyReused(
                "this idempotency key created a guest that has since become permanent or left"
            )
        }
        guard sessionsCreated < Int64(configuration.guestKeySessionsMax) else {
            throw IdentityError.idempotencyKeyReused(
                "this idempotency key has made its \(configuration.guestKeySessionsMax) sessions; use a new key"
            )
        }
        try await sql.raw(
            """
            UPDATE identity_guest_keys SET sessions_created = sessions_created + 1
            WHERE key_hash = \(SQLBytes(keyHash))
            """
        ).run()
        return try await startSession(sql, uid: uid, isAnonymous: true, now: now)
    }
}
