import Foundation
import FoyerAPI
import FoyerAccessTokens
import FoyerCrypto
import SQLKit

extension IdentityCore {
    /// Starts a session for `user` on the transaction's connection: a session row, its first refresh token, and
    /// an access token.
    func startSession(
        _ sql: any SQLDatabase,
        uid: String,
        isAnonymous: Bool,
        now: Date,
        sessionID: String = Identifiers.newSessionID()
    ) async throws
        -> SessionTokens
    {
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
            sessionID: sessionID,
            refreshToken: refreshToken,
            refreshExpiry: min(now.adding(configuration.refreshIdleTimeout), absoluteExpiry),
            now: now
        )
    }

    /// The answer for a session: a new access token and the given refresh token.
    func sessionTokens(
        uid: String,
        isAnonymous: Bool,
        sessionID: String,
        refreshToken: SecretToken,
        refreshExpiry: Date,
        now: Date
    ) throws -> SessionTokens {
        let (accessToken, accessExpiry) = try mintAccessToken(
            uid: uid,
            isAnonymous: isAnonymous,
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

    /// Signs an access token (`iat` = now in whole seconds, `exp` = iat + lifetime).
    func mintAccessToken(uid: String, isAnonymous: Bool, sessionID: String, now: Date) throws -> (String, Date) {
        let issuedAt = now.epochSeconds
        let expiresAt = issuedAt + Int64(configuration.accessTokenLifetime.timeInterval)
        let claims = AccessTokenClaims(
            subject: uid,
            isAnonymous: isAnonymous,
            sessionID: sessionID,
            issuer: configuration.issuer,
            audience: configuration.audience,
            issuedAt: issuedAt,
            expiresAt: expiresAt
        )
        let token = try keys.signer(now: now).sign(claims: claims)
        return (token, Date(timeIntervalSince1970: TimeInterval(expiresAt)))
    }
}
