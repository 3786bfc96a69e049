import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerRPC
import FoyerStorage
import SQLKit

extension IdentityCore {
    /// `startPasswordReset`: the same answer, and one mail to the address, whether or not an account has it as its
    /// email credential. An account's address gets a single-use reset link (a token of kind `password-reset` in
    /// `identity_email_links`, stored hashed with the client's verifier challenge, required unless the deployment
    /// allows unbound links: `requireVerifierChallenge`); any other address gets
    /// a notice that no account has it, so neither the answer, the time it takes nor a failing mailer says whether
    /// the address is known. The row is written in both cases, so the limits on sending (per source, per address,
    /// in all: `checkEmailLinkLimits`, shared with email links) count both alike. Resets have their own
    /// per-address count (`perAddressResetMax`), apart from the links an owner signs in with, and may use the
    /// global reserve.
    func startPasswordReset(_ request: StartPasswordResetRequest) async throws {
        if case .unavailable = mail {
            throw IdentityError.mailUnavailable("no mailer is configured: password resets are off")
        }
        guard let email = EmailAddress(request.email) else {
            throw IdentityError.invalidEmail()
        }
        try requireVerifierChallenge(request.verifierChallenge)
        let source = ClientSource(request.source)
        let now = self.now
        let token = SecretToken.generate()
        let message = try await database.transaction { sql in
            try await self.checkEmailLinkLimits(sql, email: email, source: source, now: now, passwordReset: true)
            let account = try await self.resettableAccount(sql, email: email)
            try await EmailLinkRecords.insert(
                sql,
                tokenHash: token.hash,
                email: email,
                purpose: .passwordReset,
                uid: account,
                challenge: request.verifierChallenge ?? [],
                source: source,
                now: now,
                expiry: now.adding(self.configuration.emailLink.lifetime)
            )
            let message = self.passwordResetMessage(to: email, token: account == nil ? nil : token)
            if case .outbox(let outbox) = self.mail {
                try await outbox.store(sql, message, now: now)
            }
            return message
        }
        try await deliver(message, of: token, "password-reset mail")
        logger.info("password reset asked for")
    }

    /// `invalid-argument` for a reset or an email change asked for without a verifier challenge, unless the
    /// deployment allows unbound links (`EmailLinkSettings.unboundLinksAllowed`): a link without one works for
    /// whoever reads the mail, on any device, where one with it works only for the client that asked.
    func requireVerifierChallenge(_ challenge: [UInt8]?) throws {
        guard challenge == nil, !configuration.emailLink.unboundLinksAllowed else { return }
        throw IdentityError.invalidArgument(
            "a verifier challenge is required: keep the verifier and send it with the link's token"
        )
    }

    /// Sends `message`, which carries `token`, through an external mailer (the outbox stored it with the token); if
    /// it cannot be sent the token is deleted again and the call fails `mail-unavailable`.
    func deliver(_ message: MailMessage, of token: SecretToken, _ what: String) async throws {
        if case .external(let mailer) = mail {
            do {
                try await mailer.send(message)
            } catch {
                logger.error("\(what) not delivered", metadata: ["error": "\(error)"])
                try? await database.transaction { sql in
                    try await EmailLinkRecords.delete(sql, tokenHash: token.hash)
                }
                throw IdentityError.mailUnavailable("the email could not be sent; nothing was kept")
            }
        }
        statistics.mailSent()
    }

    /// The uid of the active account whose email credential is `email`, or nil (no account, or one being merged or
    /// deleted: such an account gets the same notice as an unknown address).
    private func resettableAccount(_ sql: any SQLDatabase, email: EmailAddress) async throws -> String? {
        guard let record = try await EmailRecords.load(sql, email: email),
            let user = try await UserRecords.load(sql, uid: record.uid), user.state == .active
        else { return nil }
        return user.uid
    }

    /// The reset mail: the link when an account has the address (`token`), else a notice that none has.
    private func passwordResetMessage(to email: EmailAddress, token: SecretToken?) -> MailMessage {
        let settings = configuration.emailLink
        let body: String
        if let token {
            let link = settings.passwordResetLinkTemplate.replacingOccurrences(of: "{token}", with: token.text)
            let minutes = Int(settings.lifetime.timeInterval / 60)
            body = """
                Someone asked to reset the password of the account with this email address. Use this link to choose \
                a new password. It works once, within \(minutes) minutes, and signs out every device signed in to \
                the account:

                \(link)

                If you did not ask for it, ignore this message: your password stays as it is.
                """
        } else {
            body = """
                Someone asked to reset the password of an account with this email address, but no account uses \
                this address, so nothing was changed.

                If you did not ask for it, ignore this message.
                """
        }
        return MailMessage(
            id: Identifiers.newMessageID(),
            sender: settings.sender,
            recipient: email.value,
            subject: settings.passwordResetSubject,
            body: body
        )
    }

    /// What redeeming a reset token decided inside its transaction (a wrong verifier is counted even though the
    /// call fails).
    private enum PasswordResetOutcome {
        /// Reset; the notice to the address (already in the outbox when that is the mailer).
        case session(SessionTokens, notice: MailMessage)
        case refused(IdentityError)
    }

    /// `completePasswordReset`: checks the token as email links are checked (known, of kind `password-reset`,
    /// unused, unexpired, the verifier if the reset was asked for with a challenge, the account still holding the
    /// address), the password policy, then in one transaction spends the token, stores the new hash, marks the
    /// address verified (removing whatever an unproven setup had attached: `claimProvenEmail`), withdraws conflict
    /// tickets naming the account, revokes every session, moves the not-before and starts a new session. The address
    /// is told of the change as after `changePassword` (`keepPasswordChangedNotice`).
    func completePasswordReset(_ request: CompletePasswordResetRequest) async throws -> SessionTokens {
        guard let token = SecretToken(text: request.token) else {
            throw IdentityError.invalidToken("the password-reset token is malformed")
        }
        try checkPasswordPolicy(request.newPassword)
        let now = self.now
        // A first look, so that a token that cannot work costs no hash.
        try await database.withConnection { sql in
            _ = try Self.usableResetLink(try await EmailLinkRecords.load(sql, tokenHash: token.hash), now: now)
        }
        let hash = try await hasher.hash(
            request.newPassword,
            permit: try hasher.admit(ClientSource(request.source), now: now)
        )
        let outcome = try await database.transaction { sql in
            try await self.redeemReset(sql, token: token, verifier: request.verifier, hash: hash, now: now)
        }
        switch outcome {
        case .session(let tokens, let notice):
            logger.notice("password reset", metadata: ["user.uid": "\(tokens.uid)"])
            await sendNotice(notice, uid: tokens.uid, "password-reset notice")
            return tokens
        case .refused(let error):
            throw error
        }
    }

    private static func usableResetLink(_ link: EmailLinkRecord?, now: Date) throws -> EmailLinkRecord {
        guard let link, link.purpose == .passwordReset else {
            throw IdentityError.invalidToken("unknown password-reset token")
        }
        guard link.consumedAt == nil else { throw IdentityError.tokenAlreadyUsed() }
        guard now < link.expiresAt else { throw IdentityError.tokenExpired("the password-reset link has expired") }
        guard link.uid != nil else { throw IdentityError.invalidToken("unknown password-reset token") }
        return link
    }

    private func redeemReset(
        _ sql: any SQLDatabase,
        token: SecretToken,
        verifier: [UInt8]?,
        hash: PasswordHash,
        now: Date
    ) async throws -> PasswordResetOutcome {
        let link = try Self.usableResetLink(try await EmailLinkRecords.load(sql, tokenHash: token.hash), now: now)
        if !link.challenge.isEmpty {
            guard let verifier, VerifierChallenge.matches(verifier, link.challenge) else {
                let failures = link.failedAttempts + 1
                try await EmailLinkRecords.recordFailure(
                    sql,
                    tokenHash: token.hash,
                    failures: failures,
                    burn: failures >= Int64(configuration.emailLink.verifierFailuresMax),
                    now: now
                )
                return .refused(IdentityError.verifierMismatch())
            }
        }
        guard let email = EmailAddress(link.email) else { throw IdentityStoreError("a stored email is invalid") }
        guard let record = try await EmailRecords.load(sql, email: email, lock: true), record.uid == link.uid else {
            throw IdentityError.invalidToken("the account no longer has this address")
        }
        let user = try await UserRecords.requireActive(sql, uid: record.uid, lock: true)
        try await EmailLinkRecords.consume(sql, tokenHash: token.hash, now: now)
        try await claimProvenEmail(sql, record: record, email: email, now: now)
        try await EmailRecords.setPassword(sql, email: email, hash: hash)
        try await signOutEverywhere(sql, uid: user.uid, now: now)
        _ = try await UserRecords.touchActivity(
            sql,
            uid: user.uid,
            now: now,
            interval: configuration.activityRecordInterval
        )
        return .session(
            try await startSession(sql, user: user, now: now),
            notice: try await keepPasswordChangedNotice(sql, to: email, now: now)
        )
    }
}
