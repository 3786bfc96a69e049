import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerRPC
import FoyerStorage
import SQLKit

extension IdentityCore {
    /// `startEmailChange`: once the member proved it is them (`proveMember`: the current password, or a recent
    /// sign-in), mails a single-use link (a token of kind `email-change` in `identity_email_links`, with the new
    /// address, the uid, the asking session and the verifier challenge, `requireVerifierChallenge`) to the new address, and tells the
    /// current address that a change was asked for, before anything changes. The answer is the same whether or not
    /// another account has that address (its completion then fails `email-already-in-use`), and the link limits
    /// (per source, per address, in all) count it with the other links. The pending change dies with every step
    /// that signs the account out everywhere (`signOutEverywhere`) and with the asking session.
    func startEmailChange(_ request: StartEmailChangeRequest) async throws {
        if case .unavailable = mail {
            throw IdentityError.mailUnavailable("no mailer is configured: email changes are off")
        }
        guard let newEmail = EmailAddress(request.newEmail) else {
            throw IdentityError.invalidEmail()
        }
        try requireVerifierChallenge(request.verifierChallenge)
        let source = ClientSource(request.source)
        let now = self.now
        let (record, _, _) = try await proveMember(
            uid: request.uid,
            sessionID: request.sessionID,
            currentPassword: request.currentPassword,
            source: source,
            now: now
        )
        guard record.email != newEmail.value else {
            throw IdentityError.invalidArgument("that is the account's address already")
        }
        let settings = configuration.emailLink
        let token = SecretToken.generate()
        let link = settings.emailChangeLinkTemplate.replacingOccurrences(of: "{token}", with: token.text)
        let minutes = Int(settings.lifetime.timeInterval / 60)
        let message = MailMessage(
            id: Identifiers.newMessageID(),
            sender: settings.sender,
            recipient: newEmail.value,
            subject: settings.emailChangeSubject,
            body: """
                Someone asked to make this address the email of their account. Use this link to confirm it. It \
                works once, within \(minutes) minutes:

                \(link)

                If you did not ask for it, ignore this message: nothing changes.
                """
        )
        let notice = try await database.transaction { sql in
            try await self.checkEmailLinkLimits(sql, email: newEmail, source: source, now: now)
            try await EmailLinkRecords.insert(
                sql,
                tokenHash: token.hash,
                email: newEmail,
                purpose: .emailChange,
                uid: request.uid,
                challenge: request.verifierChallenge ?? [],
                source: source,
                now: now,
                expiry: now.adding(settings.lifetime),
                sessionID: request.sessionID
            )
            if case .outbox(let outbox) = self.mail {
                try await outbox.store(sql, message, now: now)
            }
            return try await self.keepNotice(
                sql,
                to: record.email,
                subject: settings.emailChangeAskedSubject,
                body: """
                    Someone signed in to your account asked to change its email address to another address. Nothing \
                    has changed yet: the change happens only if the link sent to the new address is used within \
                    \(minutes) minutes.

                    If it was not you, reset your password now ("Forgot password" in the app), or sign out \
                    everywhere: either cancels the change and signs out whoever asked for it.
                    """,
                now: now
            )
        }
        await sendNotice(notice, uid: request.uid, "email-change request notice")
        try await deliver(message, of: token, "email-change mail")
        logger.info("email change asked for", metadata: ["user.uid": "\(request.uid)"])
    }

    /// What redeeming an email-change token decided inside its transaction.
    private enum EmailChangeOutcome {
        /// Changed; the notice to the old address (already in the outbox when that is the mailer).
        case changed(uid: String, notice: MailMessage)
        case refused(IdentityError)
    }

    /// `completeEmailChange`: checks the token as email links are checked (known, of kind `email-change`, unused,
    /// unexpired, the verifier if one was given at start), that the account has not been signed out everywhere since
    /// (the token is not older than its not-before) and that the session that asked is still live, then in one
    /// transaction spends it and moves the account's email credential to the new address, verified, its password
    /// kept; `email-already-in-use` (the token spent) when another account has the address by now. A token that
    /// outlived its session is spent and refused as `token-expired`. The old address is told the address changed
    /// (without naming the new one). Sessions stay.
    func completeEmailChange(_ request: CompleteEmailChangeRequest) async throws {
        guard let token = SecretToken(text: request.token) else {
            throw IdentityError.invalidToken("the email-change token is malformed")
        }
        let now = self.now
        let outcome = try await database.transaction { sql in
            try await self.redeemEmailChange(sql, token: token, verifier: request.verifier, now: now)
        }
        switch outcome {
        case .refused(let error):
            throw error
        case .changed(let uid, let notice):
            logger.notice("email address changed", metadata: ["user.uid": "\(uid)"])
            await sendNotice(notice, uid: uid, "email-change notice")
        }
    }

    private func redeemEmailChange(
        _ sql: any SQLDatabase,
        token: SecretToken,
        verifier: [UInt8]?,
        now: Date
    ) async throws -> EmailChangeOutcome {
        guard let link = try await EmailLinkRecords.load(sql, tokenHash: token.hash), link.purpose == .emailChange,
            let uid = link.uid
        else { throw IdentityError.invalidToken("unknown email-change token") }
        guard link.consumedAt == nil else { throw IdentityError.tokenAlreadyUsed() }
        guard now < link.expiresAt else { throw IdentityError.tokenExpired("the email-change link has expired") }
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
        guard let newEmail = EmailAddress(link.email) else { throw IdentityStoreError("a stored email is invalid") }
        let user = try await UserRecords.requireActive(sql, uid: uid, lock: true)
        guard let current = try await EmailRecords.load(sql, uid: uid) else {
            throw IdentityError.credentialNotFound("the account no longer has an email address")
        }
        try await EmailLinkRecords.consume(sql, tokenHash: token.hash, now: now)
        // Spent already when the account was signed out everywhere; these hold even for a row that predates that.
        let asker = link.sessionID ?? ""
        guard link.createdAt.epochSeconds >= user.tokensNotBefore,
            try await SessionRecords.isLive(
                sql,
                sessionID: asker,
                uid: uid,
                now: now,
                idleTimeout: configuration.refreshIdleTimeout
            )
        else {
            return .refused(
                IdentityError.tokenExpired("the session that asked for this change has ended; ask again")
            )
        }
        if try await EmailRecords.load(sql, email: newEmail, lock: true) != nil {
            return .refused(IdentityError.emailAlreadyInUse())
        }
        try await EmailRecords.changeAddress(sql, uid: uid, to: newEmail, now: now)
        let notice = try await keepNotice(
            sql,
            to: current.email,
            subject: configuration.emailLink.emailChangedSubject,
            body: """
                The email address of your account was changed to another address: this address no longer signs in \
                to it.

                If you did not do this, sign in with your password and change the address back, or ask for help.
                """,
            now: now
        )
        return .changed(uid: uid, notice: notice)
    }
}
