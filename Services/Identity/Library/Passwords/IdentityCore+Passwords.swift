import Foundation
import FoyerAPI
import FoyerRPC
import FoyerStorage
import SQLKit

extension IdentityCore {
    var throttle: LoginThrottle { LoginThrottle(policy: configuration.failedLogins, clock: configuration.now) }
    var tickets: ConflictTickets { ConflictTickets(lifetime: configuration.conflictTicketLifetime) }

    /// `signInWithPassword`. An unknown email, an account without a password and a wrong password all cost one
    /// scrypt derivation, count one failed attempt for the address from this source, and answer
    /// `invalid-credentials` (`too-many-attempts` while the address as a whole waits: `LoginThrottle`). The source's
    /// hashing budget is spent first, so a source over it counts no attempt.
    func signInWithPassword(_ request: PasswordSignInRequest) async throws -> SessionTokens {
        guard let email = EmailAddress(request.email) else {
            throw IdentityError.invalidEmail()
        }
        guard request.password.utf8.count <= configuration.password.maximumByteCount else {
            // Longer than any password the policy accepts: no account can match; refused before hashing.
            throw IdentityError.invalidCredentials()
        }
        let now = self.now
        let source = ClientSource(request.source)
        let permit = try hasher.admit(source, now: now)
        let (claim, stored) = try await database.transaction { sql in
            let claim = try await self.throttle.claimAttempt(sql, email: email, source: source, now: now)
            return (claim, try await EmailRecords.load(sql, email: email))
        }
        let matches = try await hasher.verify(request.password, against: stored?.passwordHash, permit: permit)
        guard matches, let stored, let storedHash = stored.passwordHash else {
            logger.info("password sign-in refused", metadata: ["user.uid": "\(stored?.uid ?? "-")"])
            throw claim.wrongPassword(IdentityError.invalidCredentials())
        }
        let rehash = hasher.needsRehash(storedHash) ? try await hasher.hash(request.password, permit: permit) : nil
        let tokens = try await database.transaction { sql in
            try await self.throttle.succeeded(sql, email: email, source: source)
            if let rehash {
                try await EmailRecords.replacePassword(sql, email: email, old: storedHash, new: rehash)
            }
            let user = try await UserRecords.requireActive(sql, uid: stored.uid, lock: true)
            _ = try await UserRecords.touchActivity(
                sql,
                uid: user.uid,
                now: now,
                interval: self.configuration.activityRecordInterval
            )
            return try await self.startSession(sql, user: user, now: now)
        }
        logger.info(
            "password sign-in",
            metadata: ["user.uid": "\(tokens.uid)", "password.rehashed": "\(rehash != nil)"]
        )
        return tokens
    }

    /// `linkPassword`: the user (a guest signing up) gets an email and password and becomes permanent.
    ///
    /// - The email is new: linked; fresh tokens.
    /// - The user already has this email and password (a retry): fresh tokens.
    /// - The user has another email or a password already: `provider-already-linked`.
    /// - The email belongs to another account: that account with a conflict ticket if the password is that
    ///   account's (which counts as an attempt against that address, like a sign-in), else `email-already-in-use`.
    func linkPassword(_ request: LinkPasswordRequest) async throws -> LinkAttempt {
        guard let email = EmailAddress(request.email) else {
            throw IdentityError.invalidEmail()
        }
        try checkPasswordPolicy(request.password)
        let now = self.now
        let source = ClientSource(request.source)
        let permit = try hasher.admit(source, now: now)
        let (taken, own) = try await database.withConnection { sql in
            _ = try await UserRecords.requireActive(sql, uid: request.uid)
            return (try await EmailRecords.load(sql, email: email), try await EmailRecords.load(sql, uid: request.uid))
        }
        if let taken, taken.uid != request.uid {
            return try await conflict(
                email,
                account: taken,
                holder: request.uid,
                attempt: (request.password, source, permit),
                now: now
            )
        }
        if let own, own.email != email.value {
            throw IdentityError.providerAlreadyLinked("the user already has an email")
        }
        if let own, let stored = own.passwordHash {
            guard try await hasher.verify(request.password, against: stored, permit: permit) else {
                throw IdentityError.providerAlreadyLinked("the user already has a password")
            }
            return .session(
                try await database.transaction { sql in
                    let user = try await UserRecords.requireActive(sql, uid: request.uid, lock: true)
                    return try await self.startSession(sql, user: user, now: now)
                }
            )
        }
        let hash = try await hasher.hash(request.password, permit: permit)
        let (tokens, notice) = try await database.transaction { sql in
            let user = try await UserRecords.requireActive(sql, uid: request.uid, lock: true)
            if let own = try await EmailRecords.load(sql, uid: request.uid) {
                guard own.email == email.value, own.passwordHash == nil else {
                    throw IdentityError.providerAlreadyLinked("the user already has an email and password")
                }
                try await EmailRecords.setPassword(sql, email: email, hash: hash)
            } else {
                let inserted = try await EmailRecords.insert(
                    sql,
                    email: email,
                    uid: request.uid,
                    verified: false,
                    passwordHash: hash,
                    now: now
                )
                guard inserted else {
                    throw IdentityError.emailAlreadyInUse()
                }
            }
            try await self.recordLinking(sql, uid: request.uid, credential: "password", now: now)
            try await UserRecords.makePermanent(sql, uid: request.uid)
            // A member's verified address is told of a password set on it (a new address is unverified: no one).
            let notice =
                user.isAnonymous
                ? nil
                : try await self.keepCredentialsNotice(
                    sql,
                    uid: request.uid,
                    "A password was set on your account",
                    now: now
                )
            return (try await self.startSession(sql, uid: request.uid, isAnonymous: false, now: now), notice)
        }
        if let notice { await sendNotice(notice, uid: request.uid, "credential-added notice") }
        logger.info("password linked", metadata: ["user.uid": "\(request.uid)"])
        return .session(tokens)
    }

    /// Answers a link to an email held by another account: that account and a ticket if the password is that
    /// account's, else `email-already-in-use` with no details. The check counts as an attempt on that address from
    /// the caller's source, as a sign-in would.
    private func conflict(
        _ email: EmailAddress,
        account: EmailRecord,
        holder: String,
        attempt: (password: String, source: ClientSource, permit: HashingPermit),
        now: Date
    ) async throws -> LinkAttempt {
        let claim = try await database.transaction { sql in
            try await self.throttle.claimAttempt(sql, email: email, source: attempt.source, now: now)
        }
        guard try await hasher.verify(attempt.password, against: account.passwordHash, permit: attempt.permit) else {
            throw claim.wrongPassword(IdentityError.emailAlreadyInUse())
        }
        let details = try await database.transaction { sql in
            try await self.throttle.succeeded(sql, email: email, source: attempt.source)
            // Checked again in the ticket's transaction, as the email-link and provider paths do: a guest merged or
            // deleted while its password was being hashed (a duplicated or late request) gets no ticket that would
            // outlive it.
            _ = try await UserRecords.requireActive(sql, uid: holder, lock: true)
            return try await self.tickets.issue(sql, holder: holder, account: account.uid, now: now)
        }
        logger.info("link met an existing account", metadata: ["user.uid": "\(holder)", "other.uid": "\(account.uid)"])
        return .conflict(details)
    }

    /// The password policy, checked before any hashing: length in bytes and characters, and the blocklist. The
    /// password is taken exactly as given (no trimming, no normalization, no truncation).
    func checkPasswordPolicy(_ password: String) throws {
        let policy = configuration.password
        guard password.utf8.count <= policy.maximumByteCount else {
            throw IdentityError.weakPassword("the password is longer than \(policy.maximumByteCount) bytes")
        }
        guard password.count >= policy.minimumLength else {
            throw IdentityError.weakPassword(
                "the password is shorter than \(policy.minimumLength) characters"
            )
        }
        guard !policy.blocklist.contains(password.lowercased()) else {
            throw IdentityError.weakPassword("the password is too common")
        }
    }
}
