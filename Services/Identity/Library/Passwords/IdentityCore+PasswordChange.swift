import Foundation
import FoyerAPI
import FoyerRPC
import FoyerStorage
import SQLKit

extension IdentityCore {
    /// `changePassword`: a member with an email credential sets a new password, proving it is them with the current
    /// password (counted by the failed-login throttle and the source's hashing budget exactly as a sign-in) or,
    /// without one, with a session that started within `recentSignInWindow` (an account with no password yet can
    /// only do that). Then, in one transaction: the new hash, every session revoked and the not-before moved
    /// (`signOutEverywhere`), and a new session for the caller, whose old access token is now too old. The account's
    /// address is told of the change (`keepPasswordChangedNotice`); a notice that cannot be sent is only logged.
    func changePassword(_ request: ChangePasswordRequest) async throws -> SessionTokens {
        try checkPasswordPolicy(request.newPassword)
        let now = self.now
        let (record, email, permit) = try await proveMember(
            uid: request.uid,
            sessionID: request.sessionID,
            currentPassword: request.currentPassword,
            source: ClientSource(request.source),
            now: now
        )
        let hash = try await hasher.hash(request.newPassword, permit: permit)
        let (tokens, notice) = try await database.transaction { sql in
            let current = try await self.memberEmail(sql, uid: request.uid, lock: true)
            guard current.email == record.email, current.passwordHash == record.passwordHash else {
                throw IdentityError.changedConcurrently("the email credential changed meanwhile; try again")
            }
            try await EmailRecords.setPassword(sql, email: email, hash: hash)
            try await self.signOutEverywhere(sql, uid: request.uid, now: now)
            return (
                try await self.startSession(sql, uid: request.uid, isAnonymous: false, now: now),
                try await self.keepPasswordChangedNotice(sql, to: email, now: now)
            )
        }
        logger.notice(
            "password changed",
            metadata: [
                "user.uid": "\(request.uid)",
                "password.proof": "\(request.currentPassword == nil ? "recent sign-in" : "current password")",
            ]
        )
        await sendNotice(notice, uid: request.uid, "password-change notice")
        return tokens
    }

    /// The member's email credential, once the caller proved it is the member: with `currentPassword` (counted by
    /// the failed-login throttle and the source's hashing budget exactly as a sign-in: `invalid-credentials`,
    /// `too-many-attempts`) or, without it, with a session that started within `recentSignInWindow` while no newer
    /// credential is on probation (`recent-sign-in-required`). Also answers the hashing permit, for a new password's
    /// hash.
    func proveMember(
        uid: String,
        sessionID: String,
        currentPassword: String?,
        source: ClientSource,
        now: Date
    ) async throws -> (EmailRecord, EmailAddress, HashingPermit) {
        let record = try await database.withConnection { sql in
            try await self.memberEmail(sql, uid: uid)
        }
        guard let email = EmailAddress(record.email) else { throw IdentityStoreError("a stored email is invalid") }
        let permit = try hasher.admit(source, now: now)
        guard let currentPassword else {
            try await database.withConnection { sql in
                try await self.requireRecentSignIn(sql, uid: uid, sessionID: sessionID, now: now)
                try await self.requireNoCredentialOnProbation(sql, uid: uid, changing: .email, now: now)
            }
            return (record, email, permit)
        }
        let claim = try await database.transaction { sql in
            try await self.throttle.claimAttempt(sql, email: email, source: source, now: now)
        }
        // Longer than any password the policy accepts: it cannot match; refused before hashing, as at sign-in.
        let fits = currentPassword.utf8.count <= configuration.password.maximumByteCount
        let matches =
            fits ? try await hasher.verify(currentPassword, against: record.passwordHash, permit: permit) : false
        guard matches else {
            logger.info("account change refused: wrong current password", metadata: ["user.uid": "\(uid)"])
            throw claim.wrongPassword(IdentityError.invalidCredentials())
        }
        try await database.transaction { sql in
            try await self.throttle.succeeded(sql, email: email, source: source)
        }
        return (record, email, permit)
    }

    /// The email credential of an active member: `member-required` for a guest, `credential-not-found` when the
    /// member has none (an Apple or Google account links an email and password instead).
    func memberEmail(_ sql: any SQLDatabase, uid: String, lock: Bool = false) async throws -> EmailRecord {
        let user = try await UserRecords.requireActive(sql, uid: uid, lock: lock)
        guard !user.isAnonymous else {
            throw IdentityError.memberRequired("a guest has no password to change; link a credential first")
        }
        guard let record = try await EmailRecords.load(sql, uid: uid) else {
            throw IdentityError.credentialNotFound("the account has no email address to set a password on")
        }
        return record
    }

    /// `recent-sign-in-required` unless the user's session `sessionID` is live and started within
    /// `recentSignInWindow` (sessions start at a sign-in, a link or a reset; refreshing keeps the start).
    func requireRecentSignIn(_ sql: any SQLDatabase, uid: String, sessionID: String, now: Date) async throws {
        guard let started = try await SessionRecords.liveSessionStart(sql, sessionID: sessionID, uid: uid),
            now < started.adding(configuration.recentSignInWindow)
        else { throw IdentityError.recentSignInRequired() }
    }

    /// `recent-sign-in-required` when a credential other than `target` was linked after it and is still on probation
    /// (`credentialProbation`): a session may have been started by that newer credential, which must not be able to
    /// remove or change the older ones on its own.
    func requireNoCredentialOnProbation(
        _ sql: any SQLDatabase,
        uid: String,
        changing target: CredentialKind,
        now: Date
    ) async throws {
        let linked = try await EmailRecords.credentialsLinked(sql, uid: uid)
        guard let targetLinked = linked.first(where: { $0.0 == target })?.1 else { return }
        let probationStart = now.subtracting(configuration.credentialProbation)
        // Linked at the same instant counts as newer: the safe side.
        if linked.contains(where: { $0.0 != target && $0.1 >= targetLinked && $0.1 > probationStart }) {
            throw IdentityError.credentialOnProbation()
        }
    }

    /// `unlinkCredential`: removes the member's email credential (with its password) or one provider identity, from
    /// a recent sign-in while no newer credential is on probation (`requireNoCredentialOnProbation`), unless it is the
    /// last credential (`last-credential`). Sessions and tokens stay as they are. The account's verified address is
    /// told (`keepCredentialsNotice`). Once Apple is unlinked, the Sign in with Apple token kept for it is revoked at
    /// Apple, best-effort (`revokeUnlinkedAppleToken`).
    func unlinkCredential(_ request: UnlinkCredentialRequest) async throws {
        let now = self.now
        let (appleToken, notice) = try await database.transaction { sql -> (AppleTokenRecords.Row?, MailMessage?) in
            let user = try await UserRecords.requireActive(sql, uid: request.uid, lock: true)
            guard !user.isAnonymous else {
                throw IdentityError.memberRequired("a guest has no credential to remove")
            }
            try await self.requireRecentSignIn(sql, uid: request.uid, sessionID: request.sessionID, now: now)
            try await self.requireNoCredentialOnProbation(sql, uid: request.uid, changing: request.credential, now: now)
            let email = try await EmailRecords.load(sql, uid: request.uid)
            let providers = try await ProviderLinkRecords.identities(sql, uid: request.uid).map(\.provider)
            let held: Bool
            switch request.credential {
            case .email: held = email != nil
            case .apple: held = providers.contains(.apple)
            case .google: held = providers.contains(.google)
            }
            guard held else {
                throw IdentityError.credentialNotFound("the account has no \(request.credential) credential")
            }
            guard (email == nil ? 0 : 1) + providers.count > 1 else { throw IdentityError.lastCredential() }
            let notice = try await self.keepCredentialsNotice(
                sql,
                uid: request.uid,
                "The sign-in method \(request.credential.noticeName) was removed from your account",
                now: now
            )
            switch request.credential {
            case .email:
                try await EmailRecords.delete(sql, uid: request.uid)
                return (nil, notice)
            case .apple:
                try await ProviderLinkRecords.remove(sql, uid: request.uid, provider: .apple)
                return (try await AppleTokenRecords.rows(sql, uids: [request.uid]).first, notice)
            case .google:
                try await ProviderLinkRecords.remove(sql, uid: request.uid, provider: .google)
                return (nil, notice)
            }
        }
        logger.notice(
            "credential removed",
            metadata: ["user.uid": "\(request.uid)", "credential": "\(request.credential)"]
        )
        if let notice { await sendNotice(notice, uid: request.uid, "credential-removed notice") }
        if let appleToken { await revokeUnlinkedAppleToken(appleToken) }
    }
}
