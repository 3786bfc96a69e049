public import FoyerWire

/// The statuses of the `identity` service: rejections in `0x3101`–`0x31FF`, and a few "not processed" ones in
/// `0x1101`–`0x11FF` (safe to send again, to any replica).
///
/// No identity status carries details. A credential the caller proved but another account holds is not an error:
/// the link methods answer ``LinkAttempt/conflict(_:)`` with the account and a ticket.
public enum IdentityStatus {
    // MARK: Tokens
    /// The token is malformed, its signature does not verify, or it is not an access token (`typ`).
    public static let invalidToken = RPCStatus(rawValue: 0x3101)
    /// The token (access, refresh, email link, ID token) or the session has expired.
    public static let tokenExpired = RPCStatus(rawValue: 0x3102)
    /// The token was revoked: its session was revoked, or it predates the user's not-before, or the user is gone.
    public static let tokenRevoked = RPCStatus(rawValue: 0x3103)
    /// The token's issuer is not the expected one (or not on the provider's allowlist).
    public static let wrongIssuer = RPCStatus(rawValue: 0x3104)
    /// The token's audience is not the expected one (or not on the provider's allowlist).
    public static let wrongAudience = RPCStatus(rawValue: 0x3105)
    /// The token's `alg` is not accepted here (`none`, HMAC, or a signature kind this token never uses).
    public static let unsupportedAlgorithm = RPCStatus(rawValue: 0x3106)
    /// No known key has the token's `kid` (after a refetch, for provider keys).
    public static let unknownKeyID = RPCStatus(rawValue: 0x3107)
    /// A guest's token where a permanent account is required.
    public static let memberRequired = RPCStatus(rawValue: 0x3108)
    /// A permanent account's token, or a permanent account, where a guest is required.
    public static let guestRequired = RPCStatus(rawValue: 0x3109)
    /// A rotated refresh token was presented again outside the grace: the whole session has been revoked.
    public static let refreshTokenReused = RPCStatus(rawValue: 0x310A)
    /// The token is not valid yet (`nbf` or `iat` in the future beyond the allowed skew).
    public static let tokenNotYetValid = RPCStatus(rawValue: 0x310B)

    // MARK: Passwords and email
    /// Unknown email or wrong password (the same answer for both).
    public static let invalidCredentials = RPCStatus(rawValue: 0x3110)
    /// Too many failed attempts (or email-link requests) for this address: `aux` says when to try again.
    public static let tooManyAttempts = RPCStatus(rawValue: 0x3111)
    /// The email address is not acceptable (syntax, length, control characters).
    public static let invalidEmail = RPCStatus(rawValue: 0x3112)
    /// The password does not meet the policy (too short, too long, or a commonly used password).
    public static let weakPassword = RPCStatus(rawValue: 0x3113)
    /// The email-link token was already used.
    public static let tokenAlreadyUsed = RPCStatus(rawValue: 0x3114)
    /// The verifier does not match the challenge given when the email link was requested.
    public static let verifierMismatch = RPCStatus(rawValue: 0x3115)

    // MARK: Provider ID tokens
    /// The nonce does not match (`nonce != hex(sha256(rawNonce))`, or present on one side only).
    public static let nonceMismatch = RPCStatus(rawValue: 0x3120)
    /// The ID token's nonce was used before, or the token itself (one without a nonce: its `jti`, or its signed
    /// part) was: every ID token is accepted once.
    public static let nonceAlreadyUsed = RPCStatus(rawValue: 0x3121)
    /// The provider is not configured on this service.
    public static let providerNotConfigured = RPCStatus(rawValue: 0x3122)

    // MARK: Linking and conflicts
    /// A device key registered to another account (`registerDeviceKey`; a key's public key is registered once).
    /// Before device keys it was retired: a proven conflict of another credential is an answer (``LinkAttempt``).
    public static let credentialAlreadyInUse = RPCStatus(rawValue: 0x3130)
    /// The email belongs to another account and the caller did not prove it (a wrong password for it). No details:
    /// a proven conflict is the answer ``LinkAttempt/conflict(_:)``.
    public static let emailAlreadyInUse = RPCStatus(rawValue: 0x3131)
    /// The user already has a credential of this kind (another email, another Apple or Google identity).
    public static let providerAlreadyLinked = RPCStatus(rawValue: 0x3132)
    /// The conflict ticket is unknown, expired, already used, or issued to another user.
    public static let ticketInvalid = RPCStatus(rawValue: 0x3133)
    /// No redeemed conflict ticket binds this guest to this account, so they may not be merged.
    public static let mergeNotAuthorized = RPCStatus(rawValue: 0x3134)

    // MARK: Users and the state machine
    /// No such user.
    public static let userNotFound = RPCStatus(rawValue: 0x3140)
    /// The user is `merging` or `deleting`, so this call cannot act on it.
    public static let accountNotActive = RPCStatus(rawValue: 0x3141)
    /// Another operation id is already in progress on this user, or this one never was.
    public static let operationConflict = RPCStatus(rawValue: 0x3142)
    /// The guest was active after the cutoff (or is no longer a guest): the clean-up must not delete it.
    public static let guestStillActive = RPCStatus(rawValue: 0x3143)
    /// The idempotency key was used to create a guest that has since become permanent or left, or has made as many
    /// sessions as one key may.
    public static let idempotencyKeyReused = RPCStatus(rawValue: 0x3144)
    /// The outbox is not the configured mailer, so there is nothing to list.
    public static let outboxDisabled = RPCStatus(rawValue: 0x3145)

    // MARK: Account management
    /// Neither the current password nor a recent sign-in: sign in again (or give the current password), then retry.
    public static let recentSignInRequired = RPCStatus(rawValue: 0x3150)
    /// The credential is the account's last one: removing it would leave no way to sign in.
    public static let lastCredential = RPCStatus(rawValue: 0x3151)
    /// The account has no credential of that kind (no email credential to set a password on or to move, no such
    /// provider).
    public static let credentialNotFound = RPCStatus(rawValue: 0x3152)

    // MARK: Not processed (safe to send again)
    /// A provider's keys are unavailable (fetch failed and no usable cached keys): fail closed.
    public static let providerUnavailable = RPCStatus(rawValue: 0x1101)
    /// Too many password hashes in flight; `aux` suggests when to try again.
    public static let passwordHashingBusy = RPCStatus(rawValue: 0x1102)
    /// The mailer failed; nothing was kept.
    public static let mailUnavailable = RPCStatus(rawValue: 0x1103)
    /// Apple's token endpoint could not be reached or failed while revoking a Sign in with Apple token; the
    /// tokens it did revoke are forgotten, the others kept for the next attempt.
    public static let appleUnavailable = RPCStatus(rawValue: 0x1104)

    /// Every identity status with its name, for logs, documentation and clients.
    public static let names: [RPCStatus: String] = [
        invalidToken: "invalid-token", tokenExpired: "token-expired", tokenRevoked: "token-revoked",
        wrongIssuer: "wrong-issuer", wrongAudience: "wrong-audience", unsupportedAlgorithm: "unsupported-algorithm",
        unknownKeyID: "unknown-key-id", memberRequired: "member-required", guestRequired: "guest-required",
        refreshTokenReused: "refresh-token-reused", tokenNotYetValid: "token-not-yet-valid",
        invalidCredentials: "invalid-credentials", tooManyAttempts: "too-many-attempts",
        invalidEmail: "invalid-email", weakPassword: "weak-password", tokenAlreadyUsed: "token-already-used",
        verifierMismatch: "verifier-mismatch", nonceMismatch: "nonce-mismatch",
        nonceAlreadyUsed: "nonce-already-used", providerNotConfigured: "provider-not-configured",
        credentialAlreadyInUse: "credential-already-in-use", emailAlreadyInUse: "email-already-in-use",
        providerAlreadyLinked: "provider-already-linked", ticketInvalid: "ticket-invalid",
        mergeNotAuthorized: "merge-not-authorized", userNotFound: "user-not-found",
        accountNotActive: "account-not-active", operationConflict: "operation-conflict",
        guestStillActive: "guest-still-active", idempotencyKeyReused: "idempotency-key-reused",
        outboxDisabled: "outbox-disabled", providerUnavailable: "provider-unavailable",
        passwordHashingBusy: "password-hashing-busy", mailUnavailable: "mail-unavailable",
        recentSignInRequired: "recent-sign-in-required", lastCredential: "last-credential",
        credentialNotFound: "credential-not-found",
        appleUnavailable: "apple-unavailable",
    ]

    /// The name of an identity status (`credential-already-in-use`), or the runtime's name for other statuses.
    public static func name(of status: RPCStatus) -> String {
        names[status] ?? status.description
    }
}
