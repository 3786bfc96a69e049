import Foundation
import FoyerAPI
import FoyerAccessTokens
import FoyerCrypto
import SQLKit

extension IdentityCore {
    /// Starts a session for `user` on the transaction's connection: a session row, its first refresh token, and
    /// an access token. `grants` are the user's as the transaction has them; nil reads them from its row.
    func startSession(
        _ sql: any SQLDatabase,
        uid: String,
        isAnonymous: Bool,
        now: Date,
        sessionID: String = Identifiers.newSessionID(),
        grants: UserGrants? = nil
    ) async throws
        -> SessionTokens
    {
        var knownGrants = grants
        if knownGrants == nil { knownGrants = try await UserRecords.loadGrants(sql, uid: uid) }
        guard let grants = knownGrants else { throw IdentityStoreError("a session for a user with no row") }
        let refreshToken = SecretToken.generate()
        let absoluteExpiry = now.adding(configuration.refreshAbsoluteLifetime)
        try await SessionRecords.insertSession(sql, id: sessionID, uid: uid, now: now, absoluteExpiry: absoluteExpiry)
        try await SessionRecords.insertRefreshToken(
            sql,
            hash: refreshToken.hash,
            sessionID: sessionID,
            generation: 0,
            now: now
        )
        statistics.sessionStarted()
        return try sessionTokens(
            uid: uid,
            isAnonymous: isAnonymous,
            grants: grants,
            sessionID: sessionID,
            refreshToken: refreshToken,
            refreshExpiry: min(now.adding(configuration.refreshIdleTimeout), absoluteExpiry),
            now: now
        )
    }

    /// `startSession` for a user whose row the transaction has read: its kind, plan and roles as the row says, with
    /// no second read.
    func startSession(_ sql: any SQLDatabase, user: UserRecord, now: Date) async throws -> SessionTokens {
        try await startSession(sql, uid: user.uid, isAnonymous: user.isAnonymous, now: now, grants: user.grants)
    }

    /// Ends every way in to the users that predates now, in the transaction `sql`: conflict tickets naming them
    /// (issued to whoever proved an old credential), every session with its refresh tokens, every access token issued
    /// before this second (the not-before; one issued in this second still dies with its revoked session), and every
    /// unused token bound to them that a link could still complete: an email change, a link, a reset; and every
    /// device key (a key is a way in that outlives sessions, so it goes with them). Every step
    /// that ends sessions or proves an address goes through here (sign-out everywhere, a password change or reset,
    /// proving an address, beginning a merge or a deletion), so no pending credential change outlives it.
    func signOutEverywhere(_ sql: any SQLDatabase, uids: [String], now: Date) async throws {
        guard !uids.isEmpty else { return }
        try await tickets.withdraw(sql, accounts: uids)
        try await SessionRecords.revokeAll(sql, uids: uids, now: now)
        try await UserRecords.moveNotBefore(sql, uids: uids, now: now)
        try await EmailLinkRecords.revokePending(sql, uids: uids, now: now)
        try await DeviceKeyRecords.deleteAll(sql, uids: uids)
    }

    func signOutEverywhere(_ sql: any SQLDatabase, uid: String, now: Date) async throws {
        try await signOutEverywhere(sql, uids: [uid], now: now)
    }

    /// The answer for a session: a new access token and the given refresh token.
    func sessionTokens(
        uid: String,
        isAnonymous: Bool,
        grants: UserGrants,
        sessionID: String,
        refreshToken: SecretToken,
        refreshExpiry: Date,
        now: Date
    ) throws -> SessionTokens {
        let (accessToken, accessExpiry) = try mintAccessToken(
            uid: uid,
            isAnonymous: isAnonymous,
            grants: grants,
            sessionID: sessionID,
            now: now
        )
        return SessionTokens(
            uid: uid,
            isAnonymous: isAnonymous,
            sessionID: sessionID,
            accessToken: accessToken,
            accessTokenExpiresAtMilliseconds: accessExpiry.wireMilliseconds,
            refreshToken: refreshToken.text,
            refreshTokenExpiresAtMilliseconds: refreshExpiry.wireMilliseconds
        )
    }

    /// Signs an access token (`iat` = now in whole seconds, `exp` = iat + lifetime), naming the user's plan (the one
    /// an operator set, else the guest or member plan by kind) and roles.
    func mintAccessToken(
        uid: String,
        isAnonymous: Bool,
        grants: UserGrants,
        sessionID: String,
        now: Date
    ) throws -> (String, Date) {
        let issuedAt = now.epochSeconds
        let expiresAt = issuedAt + Int64(configuration.accessTokenLifetime.timeInterval)
        let claims = AccessTokenClaims(
            subject: uid,
            isAnonymous: isAnonymous,
            sessionID: sessionID,
            issuer: configuration.issuer,
            audience: configuration.audience,
            issuedAt: issuedAt,
            expiresAt: expiresAt,
            plan: grants.plan ?? (isAnonymous ? configuration.guestPlan : configuration.memberPlan),
            roles: grants.roles
        )
        let token = try keys.signer(now: now).sign(claims: claims)
        return (token, Date(timeIntervalSince1970: TimeInterval(expiresAt)))
    }
}
