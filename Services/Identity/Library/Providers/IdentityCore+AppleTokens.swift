import Foundation
import FoyerAPI
import FoyerStorage
import SQLKit

extension IdentityCore {
    /// After a Sign in with Apple sign-in or link for `uid`: exchanges the authorization code for a refresh token
    /// and keeps it sealed, to revoke it when the account is deleted. Never fails the sign-in: a failed exchange is
    /// logged and recorded (a row without a token, so the deletion says `notObtained`); without the Apple settings
    /// the code is ignored (identity warned at start).
    func keepAppleToken(code: String?, identity: ProviderIdentity, uid: String) async {
        guard let code, identity.provider == .apple, let endpoint = appleEndpoint,
            let kek = configuration.signingKeyEncryptionKey
        else { return }
        let now = self.now
        let clientID = identity.audience
        let token: String
        do {
            token = try await endpoint.exchange(code: code, clientID: clientID, now: now)
        } catch {
            logger.warning(
                "Sign in with Apple: the authorization code brought no refresh token; the deletion will have none to revoke",
                metadata: ["user.uid": "\(uid)", "error": "\(error)"]
            )
            try? await database.transaction { sql in
                try await AppleTokenRecords.recordFailure(
                    sql,
                    uid: uid,
                    clientID: clientID,
                    error: "\(error)",
                    now: now
                )
            }
            return
        }
        do {
            let sealed = try kek.seal(
                Array(token.utf8),
                associatedData: AppleTokenRecords.associatedData(uid: uid, clientID: clientID)
            )
            try await database.transaction { sql in
                // A user deleted (or being deleted) since the sign-in would never have the token revoked.
                _ = try await UserRecords.requireActive(sql, uid: uid, lock: true)
                try await AppleTokenRecords.store(
                    sql,
                    uid: uid,
                    clientID: clientID,
                    sealed: sealed,
                    kekID: kek.id,
                    now: now
                )
            }
            logger.info("Sign in with Apple: refresh token kept for revocation", metadata: ["user.uid": "\(uid)"])
        } catch {
            logger.warning(
                "Sign in with Apple: the refresh token could not be kept; revoking it at once",
                metadata: ["user.uid": "\(uid)", "error": "\(error)"]
            )
            _ = await endpoint.revoke(refreshToken: token, clientID: clientID, now: now)
        }
    }

    /// The first part of `finishDelete`: for each user, revokes the kept refresh token at Apple and forgets it.
    /// Every user is tried; `apple-unavailable` if any could not be revoked (their rows stay for the next call).
    /// Finding the rows is a read, off the writer's queue: most deletions (every guest's) find none and write
    /// nothing.
    func revokeAppleTokens(_ uids: [String]) async throws {
        let rows = try await database.withConnection { sql in try await AppleTokenRecords.rows(sql, uids: uids) }
        var failures = 0
        for row in rows {
            do {
                try await revokeAppleToken(row)
            } catch {
                logger.warning(
                    "Sign in with Apple: the token could not be revoked; the deletion will try again",
                    metadata: ["user.uid": "\(row.uid)", "error": "\(error)"]
                )
                failures += 1
            }
        }
        if failures > 0 {
            // The reasons are in the log; the caller (and the client it answers) learns only that it must retry.
            throw IdentityError.appleUnavailable(
                "\(failures) Sign in with Apple token(s) could not be revoked at Apple yet; try again later"
            )
        }
    }

    /// After `unlinkCredential` removed the user's Apple identity: revokes the token kept for it (`row`, read in the
    /// unlink's transaction) at Apple and forgets it, best-effort. If Apple cannot revoke it now (unreachable,
    /// failing, no answer within `requestTimeout`) the row stays, to be revoked when the account is deleted; the
    /// unlink has succeeded either way.
    func revokeUnlinkedAppleToken(_ row: AppleTokenRecords.Row) async {
        do {
            try await revokeAppleToken(row)
        } catch {
            logger.warning(
                "Sign in with Apple: the unlinked identity's token could not be revoked; the deletion will try again",
                metadata: ["user.uid": "\(row.uid)", "error": "\(error)"]
            )
        }
    }

    /// Revokes one row's token (or, without a token, forgets the record of the failed exchange), then deletes the
    /// row (unless a newer token replaced it meanwhile).
    private func revokeAppleToken(_ row: AppleTokenRecords.Row) async throws {
        guard let sealed = row.sealedToken else {
            try await database.transaction { sql in try await AppleTokenRecords.delete(sql, row) }
            logger.info(
                "Sign in with Apple: no token to revoke (its exchange had failed)",
                metadata: ["user.uid": "\(row.uid)"]
            )
            return
        }
        guard let endpoint = appleEndpoint else {
            throw IdentityError.appleUnavailable("the Sign in with Apple client-secret settings are not configured")
        }
        let kek = [configuration.signingKeyEncryptionKey, configuration.previousSigningKeyEncryptionKey]
            .compactMap { $0 }.first { $0.id == row.kekID }
        guard let kek else {
            throw IdentityError.appleUnavailable("the token is sealed with a key-encryption key identity does not have")
        }
        let token = try kek.open(
            sealed,
            associatedData: AppleTokenRecords.associatedData(uid: row.uid, clientID: row.clientID)
        )
        switch await endpoint.revoke(
            refreshToken: String(decoding: token, as: UTF8.self),
            clientID: row.clientID,
            now: now
        ) {
        case .revoked:
            try await database.transaction { sql in try await AppleTokenRecords.delete(sql, row) }
            logger.info("Sign in with Apple: token revoked", metadata: ["user.uid": "\(row.uid)"])
        case .failed(let reason):
            throw IdentityError.appleUnavailable(reason)
        }
    }
}
