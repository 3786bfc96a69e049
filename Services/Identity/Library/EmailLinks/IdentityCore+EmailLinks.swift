import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerRPC
import FoyerStorage
import Logging
import SQLKit

extension IdentityCore {
    /// `startEmailLink`: a 256-bit single-use token, stored hashed with the client's verifier challenge, sent to
    /// the address; with it (or instead of its link, per `EmailLinkSettings.delivery`) a six-digit code, stored as a
    /// hash on the same row, that `completeEmailCode` redeems on any device. The answer is the same whether an account has that address; only the limits per source, per
    /// address and in all (`too-many-attempts`, `checkEmailLinkLimits`) and a failing mailer (`mail-unavailable`,
    /// and then nothing is kept) differ, and none of them depends on the address being known.
    func startEmailLink(_ request: StartEmailLinkRequest) async throws {
        if case .unavailable = mail {
            throw IdentityError.mailUnavailable("no mailer is configured: email links are off")
        }
        guard let email = EmailAddress(request.email) else {
            throw IdentityError.invalidEmail()
        }
        let settings = configuration.emailLink
        let source = ClientSource(request.source)
        let now = self.now
        let token = SecretToken.generate()
        let code = settings.delivery.sendsCode ? EmailCodeSecret.generate() : nil
        let message = MailMessage(
            id: Identifiers.newMessageID(),
            sender: settings.sender,
            recipient: email.value,
            subject: settings.subject,
            body: mailBody(token: token, code: code, purpose: request.purpose)
        )
        try await database.transaction { sql in
            if request.purpose == .link, let uid = request.uid {
                _ = try await UserRecords.requireActive(sql, uid: uid, lock: true)
            }
            try await self.checkEmailLinkLimits(sql, email: email, source: source, now: now)
            try await EmailLinkRecords.insert(
                sql,
                tokenHash: token.hash,
                email: email,
                purpose: EmailLinkKind(request.purpose),
                uid: request.uid,
                challenge: request.verifierChallenge,
                source: source,
                now: now,
                expiry: now.adding(settings.lifetime),
                codeHash: code?.hash(tokenHash: token.hash)
            )
            if case .outbox(let outbox) = self.mail {
                try await outbox.store(sql, message, now: now)
            }
        }
        if case .external(let mailer) = mail {
            do {
                try await mailer.send(message)
            } catch {
                logger.error("email link not delivered", metadata: ["error": "\(error)"])
                try? await database.transaction { sql in
                    try await EmailLinkRecords.delete(sql, tokenHash: token.hash)
                }
                throw IdentityError.mailUnavailable("the email could not be sent; nothing was kept")
            }
        }
        statistics.mailSent()
        logger.info("email link sent", metadata: ["link.purpose": "\(EmailLinkRecords.purposeText(request.purpose))"])
    }

    /// The text of a sign-in or link email: the link, the code, or both (`EmailLinkSettings.delivery`), the code on
    /// a line of its own so that it reads at a glance.
    private func mailBody(token: SecretToken, code: EmailCodeSecret?, purpose: EmailLinkPurpose) -> String {
        let settings = configuration.emailLink
        let action = purpose == .signIn ? "sign in" : "add this address to your account"
        let minutes = Int(settings.lifetime.timeInterval / 60)
        var parts: [String] = []
        if settings.delivery.sendsLink {
            let link = settings.linkTemplate.replacingOccurrences(of: "{token}", with: token.text)
            parts.append(
                "Use this link to \(action). It works once, within \(minutes) minutes, and only in the app that asked for it:"
            )
            parts.append(link)
        }
        if let code {
            parts.append(
                settings.delivery.sendsLink
                    ? "Or, on any device, enter this code with your email address:"
                    : "To \(action), enter this code in the app with your email address:"
            )
            parts.append("    \(code.text)")
            parts.append(
                settings.delivery.sendsLink
                    ? "The code works within the same \(minutes) minutes. The link and the code work once between them."
                    : "It works once, within \(minutes) minutes."
            )
        }
        parts.append("If you did not ask for it, ignore this message.")
        return parts.joined(separator: "\n\n")
    }

    /// What completing a link decided inside its transaction (a wrong verifier is counted even though the call
    /// fails; a conflict keeps the token spent and the ticket issued).
    enum EmailLinkOutcome {
        case session(SessionTokens)
        case conflict(ConflictDetails)
        case refused(IdentityError)
    }

    /// `completeEmailLink`: a session, or (a link token for an address another account holds) that account with a
    /// conflict ticket.
    func completeEmailLink(_ request: CompleteEmailLinkRequest) async throws -> LinkAttempt {
        guard let token = SecretToken(text: request.token) else {
            throw IdentityError.invalidToken("the email-link token is malformed")
        }
        let now = self.now
        let outcome = try await database.transaction { sql in
            try await self.redeem(sql, token: token, request: request, now: now)
        }
        return try answer(outcome, redeemed: "email link redeemed", uid: request.uid)
    }

    /// The answer to a redemption (`completeEmailLink`, `completeEmailCode`), logged: the session, the conflict, or
    /// the refusal decided inside the transaction.
    func answer(_ outcome: EmailLinkOutcome, redeemed: Logger.Message, uid: String?) throws -> LinkAttempt {
        switch outcome {
        case .session(let tokens):
            logger.info(redeemed, metadata: ["user.uid": "\(tokens.uid)"])
            return .session(tokens)
        case .conflict(let details):
            logger.info(
                "link met an existing account",
                metadata: ["user.uid": "\(uid ?? "")", "other.uid": "\(details.otherUID)"]
            )
            return .conflict(details)
        case .refused(let error):
            throw error
        }
    }

    private func redeem(
        _ sql: any SQLDatabase,
        token: SecretToken,
        request: CompleteEmailLinkRequest,
        now: Date
    )
        async throws -> EmailLinkOutcome
    {
        guard let link = try await EmailLinkRecords.load(sql, tokenHash: token.hash),
            let purpose = link.purpose.emailLinkPurpose
        else {
            // A token of another kind (a password reset) is as unknown here as one never issued.
            throw IdentityError.invalidToken("unknown email-link token")
        }
        guard link.consumedAt == nil else {
            throw IdentityError.tokenAlreadyUsed()
        }
        guard now < link.expiresAt else { throw IdentityError.tokenExpired("the email link has expired") }
        guard VerifierChallenge.matches(request.verifier, link.challenge) else {
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
        guard link.purpose == .signIn || (request.uid != nil && request.uid == link.uid) else {
            throw IdentityError.invalidToken("the link was requested by another user")
        }
        guard let email = EmailAddress(link.email) else { throw IdentityStoreError("a stored email is invalid") }
        try await EmailLinkRecords.consume(sql, tokenHash: token.hash, now: now)
        switch purpose {
        case .signIn:
            return .session(try await signInByEmail(sql, email: email, now: now))
        case .link:
            return try await linkEmail(sql, uid: link.uid ?? "", email: email, now: now)
        }
    }

    /// Signs in to the account with this email (proven by the link), creating a permanent account if none has it.
    func signInByEmail(_ sql: any SQLDatabase, email: EmailAddress, now: Date) async throws -> SessionTokens {
        if let record = try await EmailRecords.load(sql, email: email, lock: true) {
            let user = try await UserRecords.requireActive(sql, uid: record.uid, lock: true)
            try await claimProvenEmail(sql, record: record, email: email, now: now)
            _ = try await UserRecords.touchActivity(
                sql,
                uid: user.uid,
                now: now,
                interval: configuration.activityRecordInterval
            )
            return try await startSession(sql, user: user, now: now)
        }
        let uid = Identifiers.newUID()
        try await UserRecords.insert(sql, uid: uid, isAnonymous: false, now: now)
        try await recordCreated(sql, uid: uid, isAnonymous: false, method: "email-link", now: now)
        guard
            try await EmailRecords.insert(sql, email: email, uid: uid, verified: true, passwordHash: nil, now: now)
        else { throw IdentityError.changedConcurrently("the address was claimed concurrently; try again") }
        return try await startSession(sql, uid: uid, isAnonymous: false, now: now)
    }

    /// Attaches the (proven) email to `uid`, or answers a conflict with a ticket if another account has it.
    func linkEmail(
        _ sql: any SQLDatabase,
        uid: String,
        email: EmailAddress,
        now: Date
    ) async throws
        -> EmailLinkOutcome
    {
        let user = try await UserRecords.requireActive(sql, uid: uid, lock: true)
        if let record = try await EmailRecords.load(sql, email: email, lock: true) {
            try await claimProvenEmail(sql, record: record, email: email, now: now)
            guard record.uid == uid else {
                return .conflict(try await tickets.issue(sql, holder: uid, account: record.uid, now: now))
            }
            try await recordLinking(sql, uid: uid, credential: "email-link", now: now)
            try await UserRecords.makePermanent(sql, uid: uid)
            return .session(try await startSession(sql, uid: uid, isAnonymous: false, now: now))
        }
        if try await EmailRecords.load(sql, uid: uid) != nil {
            throw IdentityError.providerAlreadyLinked("the user already has an email")
        }
        guard
            try await EmailRecords.insert(sql, email: email, uid: uid, verified: true, passwordHash: nil, now: now)
        else { throw IdentityError.changedConcurrently("the address was claimed concurrently; try again") }
        try await recordLinking(sql, uid: user.uid, credential: "email-link", now: now)
        try await UserRecords.makePermanent(sql, uid: user.uid)
        return .session(try await startSession(sql, uid: uid, isAnonymous: false, now: now))
    }

    /// The owner of the address just proved it. If the address was unverified on its account, whoever set it up
    /// there never proved it (account pre-hijacking: an attacker links `victim@x` with a password, and perhaps their
    /// own Apple or Google identity, to an account of theirs and waits for the victim to prove the address). So
    /// nothing set up before the proof survives: the password and every provider identity go, and
    /// `signOutEverywhere` withdraws conflict tickets naming the account, revokes every session, moves the not-before
    /// and spends every pending email change, link and reset, so no token issued before works. The owner adds the credentials they want afterwards. A verified address
    /// is left alone (docs/DECISIONS.md, "Proving an address").
    func claimProvenEmail(
        _ sql: any SQLDatabase,
        record: EmailRecord,
        email: EmailAddress,
        now: Date
    )
        async throws
    {
        guard !record.verified else { return }
        try await EmailRecords.markVerified(sql, email: email)
        try await EmailRecords.setPassword(sql, email: email, hash: nil)
        let identities = try await ProviderLinkRecords.removeAll(sql, uid: record.uid)
        try await signOutEverywhere(sql, uid: record.uid, now: now)
        logger.notice(
            "credentials set up before the address was proven removed",
            metadata: [
                "user.uid": "\(record.uid)", "password.removed": "\(record.passwordHash != nil)",
                "providers.removed": "\(identities)",
            ]
        )
    }

    /// `listOutbox`.
    func listOutbox(_ request: ListOutboxRequest) async throws -> OutboxMessages {
        guard case .outbox(let outbox) = mail else {
            throw IdentityError.outboxDisabled()
        }
        let recipient = request.recipient.map { EmailAddress($0)?.value ?? $0 }
        let messages = try await database.withConnection { sql in
            try await outbox.list(sql, recipient: recipient, limit: Int(request.limit))
        }
        return OutboxMessages(messages: messages)
    }
}
