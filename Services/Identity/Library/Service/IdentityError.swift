import FoyerAPI

/// Why identity refused a request. Only `IdentityRoutes.rpcError(_:)` turns it into a wire status; anything else
/// a handler throws (other than an `RPCError`) the RPC runtime answers as `internal`, the detail in its log only.
///
/// Two errors are equal when their codes are: the message and retry-after are what the caller reads. A credential
/// conflict the caller proved is not an error but an answer (`LinkAttempt.conflict`).
struct IdentityError: Error, Equatable, CustomStringConvertible {
    enum Code: Hashable, Sendable, CaseIterable {
        // Runtime statuses identity answers with.
        case invalidArgument, sessionNotFound, changedConcurrently
        // Administration.
        case notFound, adminKeyRefused, tooManyAdminKeys
        // Tokens.
        case invalidToken, tokenExpired, tokenRevoked, wrongIssuer, wrongAudience, unsupportedAlgorithm
        case unknownKeyID, memberRequired, guestRequired, refreshTokenReused, tokenNotYetValid
        // Passwords and email.
        case invalidCredentials, tooManyAttempts, invalidEmail, weakPassword, tokenAlreadyUsed, verifierMismatch
        // Provider ID tokens.
        case nonceMismatch, nonceAlreadyUsed, providerNotConfigured
        // Linking and conflicts.
        case emailAlreadyInUse, providerAlreadyLinked, ticketInvalid, credentialAlreadyInUse
        // Users and the state machine.
        case userNotFound, accountNotActive, operationConflict, guestStillActive, idempotencyKeyReused
        case outboxDisabled
        // Account management.
        case recentSignInRequired, lastCredential, credentialNotFound
        // Not processed (safe to send again).
        case providerUnavailable, passwordHashingBusy, mailUnavailable
        case appleUnavailable
    }

    private(set) var code: Code
    private(set) var message: String
    /// A hint of when to try again; nil when none.
    private(set) var retryAfterMilliseconds: UInt32?

    private init(
        _ code: Code,
        _ message: String,
        retryAfterMilliseconds: UInt32? = nil
    ) {
        self.code = code
        self.message = message
        self.retryAfterMilliseconds = retryAfterMilliseconds
    }

    var description: String { "\(code): \(message)" }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
}

// MARK: Runtime statuses

extension IdentityError {
    static func invalidArgument(_ message: String) -> Self { Self(.invalidArgument, message) }
    static func sessionNotFound() -> Self { Self(.sessionNotFound, "the user has no such session") }
    /// A row changed under the transaction (a concurrent claim or expiry): the caller may try again.
    static func changedConcurrently(_ message: String) -> Self { Self(.changedConcurrently, message) }
}

// MARK: Administration

extension IdentityError {
    /// No user, admin key or audit entry of that name (the admin methods answer the generic `not-found`).
    static func notFound(_ message: String) -> Self { Self(.notFound, message) }
    /// The admin key is malformed, unknown or revoked: one answer for all.
    static func adminKeyRefused() -> Self { Self(.adminKeyRefused, "the admin key is not valid") }
    static func tooManyAdminKeys() -> Self {
        Self(
            .tooManyAdminKeys,
            "there are \(IdentityLimits.adminKeysCountMax) admin keys already; revoked keys are removed 90 days after"
                + " their revocation"
        )
    }
}

// MARK: Tokens

extension IdentityError {
    static func invalidToken(_ message: String = "the token is not valid") -> Self { Self(.invalidToken, message) }
    static func tokenExpired(_ message: String = "the token has expired") -> Self { Self(.tokenExpired, message) }
    static func tokenRevoked(_ message: String = "the token was revoked") -> Self { Self(.tokenRevoked, message) }
    static func wrongIssuer() -> Self { Self(.wrongIssuer, "the ID token's issuer is not accepted") }
    static func wrongAudience() -> Self { Self(.wrongAudience, "the ID token is meant for another app") }
    static func unsupportedAlgorithm(_ message: String) -> Self { Self(.unsupportedAlgorithm, message) }
    static func unknownKeyID(_ message: String) -> Self { Self(.unknownKeyID, message) }
    static func memberRequired(_ message: String) -> Self { Self(.memberRequired, message) }
    static func guestRequired(_ message: String) -> Self { Self(.guestRequired, message) }
    static func refreshTokenReused() -> Self {
        Self(.refreshTokenReused, "the refresh token was already used; the session is revoked")
    }
    static func tokenNotYetValid(_ message: String) -> Self { Self(.tokenNotYetValid, message) }
}

// MARK: Passwords and email

extension IdentityError {
    static func invalidCredentials() -> Self { Self(.invalidCredentials, "the email or the password is wrong") }
    static func tooManyAttempts(
        retryAfter: Duration,
        _ message: String = "too many attempts; try again later"
    ) -> Self {
        Self(.tooManyAttempts, message, retryAfterMilliseconds: retryAfter.wholeMilliseconds)
    }
    static func invalidEmail() -> Self { Self(.invalidEmail, "the email address is not valid") }
    static func weakPassword(_ message: String) -> Self { Self(.weakPassword, message) }
    static func tokenAlreadyUsed(_ message: String = "the email-link token was already used") -> Self {
        Self(.tokenAlreadyUsed, message)
    }
    /// A wrong email code, or none sent to the address (the same answer for both, as for a password).
    static func wrongEmailCode() -> Self { Self(.invalidCredentials, "the email or the code is wrong") }
    /// An unknown device key or a signature that does not verify (the same answer for both).
    static func wrongDeviceKeySignature() -> Self {
        Self(.invalidCredentials, "the device key or its signature is wrong")
    }
    static func verifierMismatch() -> Self { Self(.verifierMismatch, "the verifier does not match") }
}

// MARK: Provider ID tokens

extension IdentityError {
    static func nonceMismatch(_ message: String) -> Self { Self(.nonceMismatch, message) }
    static func nonceAlreadyUsed(_ message: String) -> Self { Self(.nonceAlreadyUsed, message) }
    static func providerNotConfigured(_ provider: IdentityProvider) -> Self {
        Self(.providerNotConfigured, "\(provider) sign-in is not configured")
    }
}

// MARK: Linking and conflicts

extension IdentityError {
    /// The email belongs to another account and the caller did not prove it (a wrong password for it).
    static func emailAlreadyInUse() -> Self { Self(.emailAlreadyInUse, "the email belongs to another account") }
    static func providerAlreadyLinked(_ message: String) -> Self { Self(.providerAlreadyLinked, message) }
    /// A device key registered to another user (a key's public key is registered once).
    static func deviceKeyOfAnotherUser() -> Self {
        Self(.credentialAlreadyInUse, "the device key is registered to another account")
    }
    static func ticketInvalid() -> Self {
        Self(.ticketInvalid, "the ticket is unknown, expired, used, or not yours")
    }
}

// MARK: Users and the state machine

extension IdentityError {
    static func userNotFound() -> Self { Self(.userNotFound, "no such user") }
    static func accountNotActive(_ state: String) -> Self { Self(.accountNotActive, "the account is \(state)") }
    static func operationConflict(_ message: String) -> Self { Self(.operationConflict, message) }
    static func guestStillActive() -> Self { Self(.guestStillActive, "the user is not an idle guest") }
    static func idempotencyKeyReused(_ message: String) -> Self { Self(.idempotencyKeyReused, message) }
    static func outboxDisabled() -> Self { Self(.outboxDisabled, "the outbox is not the configured mailer") }
}

// MARK: Account management

extension IdentityError {
    static func recentSignInRequired() -> Self {
        Self(.recentSignInRequired, "give the current password, or sign in again and retry within a few minutes")
    }
    static func credentialOnProbation() -> Self {
        Self(
            .recentSignInRequired,
            "a sign-in method was added to the account recently: until a day has passed, older ones can be removed "
                + "or changed only with the current password"
        )
    }
    static func lastCredential() -> Self {
        Self(.lastCredential, "this is the account's last credential; add another before removing it")
    }
    static func credentialNotFound(_ message: String) -> Self { Self(.credentialNotFound, message) }
}

// MARK: Not processed

extension IdentityError {
    static func providerUnavailable() -> Self { Self(.providerUnavailable, "the provider's keys are unavailable") }
    static func passwordHashingBusy() -> Self {
        Self(
            .passwordHashingBusy,
            "too many password checks in flight; try again shortly",
            retryAfterMilliseconds: 250
        )
    }
    static func mailUnavailable(_ message: String) -> Self { Self(.mailUnavailable, message) }
    static func appleUnavailable(_ message: String) -> Self { Self(.appleUnavailable, message) }
}
