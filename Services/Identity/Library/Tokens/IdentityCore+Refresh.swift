import Foundation
import FoyerAPI
import FoyerRPC
import FoyerStorage
import SQLKit

extension IdentityCore {
    /// What a refresh did, decided inside the transaction and answered after it committed (a reuse must revoke
    /// the session even though the call fails).
    private enum RefreshOutcome {
        case rotated(user: UserRecord, sessionID: String, successor: SecretToken, expiry: Date)
        case reused(uid: String)
    }

    /// The purpose string of the pad that wraps a successor under its predecessor.
    static let successorWrapPurpose = "foyer.identity.refresh-successor.v1"

    /// `refreshSession`: rotates the refresh token.
    ///
    /// - The newest token of a session gets a fresh successor (256 random bits); the predecessor keeps the
    ///   successor's hash and the successor wrapped under a pad derived from the predecessor itself, so the
    ///   database never holds a usable token.
    /// - The immediate predecessor presented again within the grace (a lost response, or a concurrent refresh that
    ///   lost the race for the session's row lock) unwraps and returns the same successor: one successor, no
    ///   revocation.
    /// - Any other rotated token revokes the whole session (`refresh-token-reused`).
    func refreshSession(_ request: RefreshSessionRequest) async throws -> SessionTokens {
        guard let presented = SecretToken(text: request.refreshToken) else {
            throw IdentityError.invalidToken("the refresh token is malformed")
        }
        let now = self.now
        let outcome = try await database.transaction { sql in
            try await self.rotate(sql, presented: presented, now: now)
        }
        switch outcome {
        case .reused(let uid):
            logger.warning("refresh token reused; session revoked", metadata: ["user.uid": "\(uid)"])
            throw IdentityError.refreshTokenReused()
        case .rotated(let user, let sessionID, let successor, let expiry):
            // The user's current kind, plan and roles: a guest that linked a credential gets false from now on, a
            // user whose plan or roles an operator changed gets the new ones.
            return try sessionTokens(
                uid: user.uid,
                isAnonymous: user.isAnonymous,
                grants: user.grants,
                sessionID: sessionID,
                refreshToken: successor,
                refreshExpiry: expiry,
                now: now
            )
        }
    }

    private func rotate(_ sql: any SQLDatabase, presented: SecretToken, now: Date) async throws -> RefreshOutcome {
        guard let token = try await SessionRecords.loadRefreshToken(sql, hash: presented.hash) else {
            throw IdentityError.invalidToken("unknown refresh token")
        }
        guard token.revokedAt == nil else { throw IdentityError.tokenRevoked("the session was revoked") }
        let idleExpiry = token.lastUsedAt.adding(configuration.refreshIdleTimeout)
        guard now < token.absoluteExpiresAt, now < idleExpiry else {
            throw IdentityError.tokenExpired("the session has expired")
        }
        let user = try await UserRecords.load(sql, uid: token.uid)
        guard let user, user.state == .active else { throw IdentityError.tokenRevoked("the account is not active") }

        if let successorHash = token.successorHash {
            // A rotated token: only the immediate predecessor of the newest token, within the grace, is a retry.
            let withinGrace = token.rotatedAt.map { now <= $0.adding(configuration.refreshReuseGrace) } ?? false
            let successorIsNewest = try await !SessionRecords.isRotated(sql, hash: successorHash)
            if withinGrace, successorIsNewest, let wrapped = token.successorWrapped,
                let successor = SecretToken.unwrap(wrapped, under: presented, purpose: Self.successorWrapPurpose),
                successor.hash == successorHash
            {
                let expiry = min(token.lastUsedAt.adding(configuration.refreshIdleTimeout), token.absoluteExpiresAt)
                return .rotated(
                    user: user,
                    sessionID: token.sessionID,
                    successor: successor,
                    expiry: expiry
                )
            }
            _ = try await SessionRecords.revoke(sql, sessionID: token.sessionID, uid: token.uid, now: now)
            return .reused(uid: token.uid)
        }

        let successor = SecretToken.generate()
        try await SessionRecords.insertRefreshToken(
            sql,
            hash: successor.hash,
            sessionID: token.sessionID,
            generation: token.generation + 1,
            now: now
        )
        try await SessionRecords.recordRotation(
            sql,
            hash: token.tokenHash,
            successorHash: successor.hash,
            successorWrapped: successor.wrapped(under: presented, purpose: Self.successorWrapPurpose),
            now: now
        )
        try await SessionRecords.markUsed(sql, sessionID: token.sessionID, now: now)
        _ = try await UserRecords.touchActivity(
            sql,
            uid: token.uid,
            now: now,
            interval: configuration.activityRecordInterval
        )
        let expiry = min(now.adding(configuration.refreshIdleTimeout), token.absoluteExpiresAt)
        return .rotated(
            user: user,
            sessionID: token.sessionID,
            successor: successor,
            expiry: expiry
        )
    }

    /// `revokeSession`.
    func revokeSession(_ request: RevokeSessionRequest) async throws {
        let now = self.now
        let found = try await database.transaction { sql in
            try await SessionRecords.revoke(sql, sessionID: request.sessionID, uid: request.uid, now: now)
        }
        guard found else { throw IdentityError.sessionNotFound() }
        logger.info("session revoked", metadata: ["user.uid": "\(request.uid)"])
    }

    /// `revokeAllSessions`: `signOutEverywhere`.
    func revokeAllSessions(_ request: IdentityUserRequest) async throws {
        let now = self.now
        try await database.transaction { sql in
            guard try await UserRecords.load(sql, uid: request.uid, lock: true) != nil else {
                throw IdentityError.userNotFound()
            }
            try await self.signOutEverywhere(sql, uid: request.uid, now: now)
        }
        logger.info("all sessions revoked", metadata: ["user.uid": "\(request.uid)"])
    }
}
