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
