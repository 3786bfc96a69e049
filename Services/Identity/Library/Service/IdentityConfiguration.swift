public import Foundation
public import FoyerCrypto
public import FoyerStorage

/// Every setting of the identity service, with its default. Plain data: the executable maps flags and
/// environment variables onto it, tests build it directly (with cheap scrypt parameters and a test clock).
public struct IdentityConfiguration: Sendable {
    /// Where identity keeps its tables (SQLite file or PostgreSQL URL).
    public var database: DatabaseConfiguration

    // MARK: Access tokens

    /// `iss` of the access tokens, and the `issuer` of the gateway's discovery document: an absolute http(s) URL
    /// without query or fragment (`https://auth.example.com`), https unless its host is a loopback address.
    /// Default "http://127.0.0.1:7480", the gateway's HTTP address under `make run`: a deployment sets its own.
    public var issuer: String = "http://127.0.0.1:7480"
    /// `aud` of the access tokens. Default "foyer-app".
    public var audience: String = "foyer-app"
    /// The algorithm of the keys that sign access tokens: ES256, RS256 or EdDSA. Starting with another algorithm
    /// than the current key's rotates to a key of this one (with `signingKeyActivationDelay`). Default ES256, which
    /// every common verifier accepts (docs/DECISIONS.md).
    public var signingAlgorithm: JWSAlgorithm = .es256
    /// Lifetime of an access token (`exp - iat`). Default 15 minutes.
    public var accessTokenLifetime: Duration = .seconds(15 * 60)
    /// Clock difference tolerated when checking our own tokens' `exp` and `iat`. Default 60 s.
    public var accessTokenClockSkew: Duration = .seconds(60)
    /// How often signing keys are reloaded from the database (so replicas see a rotation), and the least time
    /// between two reloads caused by an unknown `kid`. Default 60 s.
    public var signingKeyReloadInterval: Duration = .seconds(60)
    /// How long a new signing key is published before it signs (the key it replaces signs until then): longer than
    /// `signingKeyReloadInterval` plus a gateway's key refetch interval (30 s by default), so no replica or gateway
    /// meets a token of a key it has not loaded yet. Default 120 s.
    public var signingKeyActivationDelay: Duration = .seconds(120)
    /// The key-encryption key that seals the signing keys at rest (`--signing-key-encryption-key-file`). Default
    /// nil: the keys are stored in clear, and identity logs a warning at start.
    public var signingKeyEncryptionKey: SigningKeyEncryptionKey?
    /// The key-encryption key that sealed the signing keys before `signingKeyEncryptionKey`: start-up re-seals
    /// them with the current one. Default nil.
    public var previousSigningKeyEncryptionKey: SigningKeyEncryptionKey?
    /// The janitor rotates the signing key when the newest unretired one is older than this. Default 90 days; nil:
    /// only on request (`rotateSigningKey`).
    public var signingKeyRotationInterval: Duration? = .seconds(90 * 86_400)

    // MARK: Sessions and refresh tokens

    /// A session whose refresh token is not used for this long expires. Default 30 days.
    public var refreshIdleTimeout: Duration = .seconds(30 * 86_400)
    /// A session expires this long after it began, however often it is refreshed. Default 365 days (guests keep
    /// their account only through their refresh token, so this is long; see the README).
    public var refreshAbsoluteLifetime: Duration = .seconds(365 * 86_400)
    /// How long after a rotation the immediate predecessor may be presented again (a retry after a lost
    /// response) and get the same successor. Default 30 s.
    public var refreshReuseGrace: Duration = .seconds(30)
    /// How long a guest sign-in's idempotency key returns the same guest. Whoever holds the key gets a session of
    /// that guest meanwhile, so the window covers a retry of a lost answer and no more. Default 10 minutes.
    public var guestIdempotencyWindow: Duration = .seconds(600)
    /// Most sessions one guest sign-in key creates (the first and its replays, each beside the others); a replay
    /// beyond it is refused with `idempotency-key-reused`. Default 5.
    public var guestKeySessionsMax: Int = 5

    // MARK: Credentials

    /// Password hashing and the password policy.
    public var password = PasswordPolicy()
    /// The limit on failed password attempts per email address.
    public var failedLogins = FailedLoginPolicy()
    /// Passwordless email links.
    public var emailLink = EmailLinkSettings()
    /// How email links are delivered. Default `.disabled`: email links are refused with `mail-unavailable`.
    public var mailer: MailerChoice = .disabled
    /// Local mode: allows the `.outbox` mailer, which keeps live sign-in links in the database for `listOutbox`
    /// (an operator's call, with the cluster secret). For a developer's machine and tests only; never for a
    /// deployment that faces the internet. Default false: the outbox mailer stops the start.
    public var localMode: Bool = false
    /// Sign in with Apple; `nil` (the default) refuses Apple tokens with `provider-not-configured`.
    public var apple: ProviderSettings?
    /// Sign in with Google; `nil` (the default) refuses Google tokens with `provider-not-configured`.
    public var google: ProviderSettings?
    /// Sign in with Apple's client-secret key and endpoints, to exchange the authorization codes given at sign-in
    /// and link for refresh tokens and revoke them when the account is deleted. Needs `signingKeyEncryptionKey`
    /// (the tokens are kept sealed with it). Default nil: codes are ignored, with a warning at start when Apple
    /// sign-in is on.
    public var appleRevocation: AppleRevocationSettings?
    /// Allows provider keys from a JWKS file or a plain-http URL, which only tests with a stand-in provider use
    /// (`--allow-test-identity-providers`). Default false: such settings stop the start, in every build.
    public var allowTestIdentityProviders: Bool = false
    /// How long a conflict ticket can be redeemed. Default 10 minutes.
    public var conflictTicketLifetime: Duration = .seconds(600)
    /// How long after signing in a session may change the password or the email address, or remove a credential,
    /// without giving the current password (a stolen long-lived session cannot). Measured from the session's start (a sign-in, a link,
    /// a reset); refreshing does not extend it. Default 5 minutes.
    public var recentSignInWindow: Duration = .seconds(300)
    /// How long a newly linked credential of a permanent account is on probation: while one is, no session counts
    /// as a recent sign-in for removing an older credential, or for changing the address or password without the
    /// current password (the new credential may itself have started that session: a thief who links their own
    /// Google account to a stolen session must not then strip the owner's). The new credential itself can be
    /// removed at once. Default 24 hours.
    public var credentialProbation: Duration = .seconds(86_400)

    // MARK: Plans in access tokens

    /// The plan a guest's access tokens name unless an operator set another (`setUserPlan`). The gateway opens
    /// guests' quota accounts on its plan of the same name; the two must agree. Default "guest".
    public var guestPlan: String = "guest"
    /// The plan a permanent account's access tokens name unless an operator set another; a guest that links a
    /// credential moves to it, as the gateway moves its quota account. Default "member".
    public var memberPlan: String = "member"

    // MARK: Events to the app's backend

    /// The webhook endpoints and signing secrets identity delivers its events to. Default nil: no event is written.
    public var webhooks: WebhookSettings?
    /// How long an event is kept after it occurred, whatever its delivery state; the janitor removes it then.
    /// Default 7 days.
    public var eventRetention: Duration = .seconds(7 * 86_400)

    // MARK: Activity and maintenance

    /// Activity is written at most once per this interval per user. Default 10 minutes.
    public var activityRecordInterval: Duration = .seconds(600)
    /// How often the background janitor prunes expired rows (sessions, links, nonces, tickets, keys).
    /// Default 5 minutes.
    public var maintenanceInterval: Duration = .seconds(300)
    /// Most rows the janitor deletes from one table per round. Default 1000.
    public var maintenanceBatchSize: Int = 1000

    /// The clock. Tests pass one they can advance; everything time-dependent reads it.
    public var now: @Sendable () -> Date = { Date() }

    public init(database: DatabaseConfiguration) {
        self.database = database
    }
}

/// How passwords are hashed and which passwords are accepted.
public struct PasswordPolicy: Sendable {
    /// The algorithm of new hashes. Default Argon2id. A stored hash of the other algorithm, or of a lower cost,
    /// is replaced at the owner's next successful sign-in.
    public var algorithm: PasswordAlgorithm = .argon2id
    /// Argon2id cost for new hashes. Default m = 19 MiB, t = 2, p = 1 (`Argon2Parameters.interactive`).
    public var argon2: Argon2Parameters = .interactive
    /// scrypt cost for new hashes when `algorithm` is scrypt, and the memory ceiling for verifying stored scrypt
    /// hashes. Default N = 2^17, r = 8, p = 1, maxmem 256 MiB (`ScryptParameters.interactive`).
    public var scrypt: ScryptParameters = .interactive
    /// Hashes computed at once (each takes about 19 MiB and 25 ms at the default cost; a scrypt one 128 MiB and
    /// 0.4 s). Default 2.
    public var hashConcurrencyMax: Int = 2
    /// Requests that may wait for a hashing slot; beyond it `password-hashing-busy`. Default 64.
    public var hashQueueMax: Int = 64
    /// Password hashes one client source (an IPv4 address, or an IPv6 /64, as the gateway saw it) may cause per
    /// minute once its burst is spent; beyond it `too-many-attempts` with the wait, before any hashing slot is
    /// asked for. Counted in memory by each replica. Internal callers (no source) are not counted. Default 10.
    public var perSourceHashesPerMinute: Int = 10
    /// Password hashes a source may cause at once, with a full budget. Default 10.
    public var perSourceHashBurst: Int = 10
    /// Sources whose hashing budget a replica holds at once; at the cap, sources whose budget has refilled are
    /// forgotten first, then the least recently seen (which gives them their full budget back). Default 10,000,
    /// so a source loses nothing it had spent unless thousands of others hashed within the same minute.
    public var hashBudgetSourcesMax: Int = 10_000
    /// Fewest characters. Default 8 (ASVS 6.2.1).
    public var minimumLength: Int = 8
    /// Most UTF-8 bytes, checked before any hashing. Default 256 (so 64-character passwords in any script fit).
    public var maximumByteCount: Int = 256
    /// Refused passwords (compared case-insensitively). Default: `CommonPasswords.builtIn`, the 3,000 most common
    /// (ASVS 6.2.4) and a few more.
    public var blocklist: Set<String> = CommonPasswords.builtIn

    public init() {}
}

/// Failed password attempts per email address (known or not, so the limit reveals nothing) and client source, and
/// per address across all sources: the first `freeAttempts` from one source (`perAddressFreeAttempts` from all
/// together) cost nothing, each further one makes the next wait twice as long, up to `maximumDelay`, so the
/// owner is never locked out for longer than that and at most about 3600 / maximumDelay guesses fit in an hour.
/// One source's failures delay only that source (docs/DECISIONS.md). A successful sign-in clears its source's
/// count and takes its attempt back from the address's; `resetAfter` without failures clears a count.
public struct FailedLoginPolicy: Sendable {
    /// Free failed attempts on one address from one source. Default 5.
    public var freeAttempts: Int = 5
    /// Free failed attempts on one address from all sources together (guessing spread over many hosts). Default 50.
    public var perAddressFreeAttempts: Int = 50
    public var initialDelay: Duration = .seconds(1)
    public var maximumDelay: Duration = .seconds(60)
    public var resetAfter: Duration = .seconds(3600)
    /// Failed attempts on one address, from sources not trusted for it, after which such sources are refused
    /// before the password is checked until the count is forgotten (`resetAfter` after its last failure). A source
    /// that gave the right password within `resetAfter` is trusted: it still signs in, and its failures do not
    /// count here. So an address sees at most this many failures per `resetAfter` from untrusted sources; start-up
    /// refuses settings that allow more than 100 an hour (`IdentityConfigurationCheck`). Default 90.
    public var perAddressFailuresMax: Int = 90

    public init() {}
}

/// Passwordless email links.
public struct EmailLinkSettings: Sendable {
    /// How long a link token can be redeemed. Default 10 minutes (ASVS 6.5.5).
    public var lifetime: Duration = .seconds(600)
    /// Links sent to one address per window; beyond it `too-many-attempts`. Default 5 per hour.
    public var perAddressMax: Int = 5
    public var perAddressWindow: Duration = .seconds(3600)
    /// Links one client source (an IPv4 address, or an IPv6 /64, as the gateway saw it) may ask for per window,
    /// to any addresses; beyond it `too-many-attempts`. Internal callers (no source) are not counted. Counted in
    /// the database, so across replicas. Default 20 per hour.
    public var perSourceMax: Int = 20
    public var perSourceWindow: Duration = .seconds(3600)
    /// Links the whole service sends per window, to all addresses from all sources (so that no one can spend the
    /// mail provider's reputation); beyond it `too-many-attempts`. Counted in the database. Default 1000 per hour.
    public var globalMax: Int = 1000
    public var globalWindow: Duration = .seconds(3600)
    /// The part of `globalMax` that only links to an address an account holds, and password resets, may use: once
    /// `globalMax - globalReserve` links went out in the window, a sign-in link to an unknown address is treated as
    /// past `globalMax`. Default 200.
    public var globalReserve: Int = 200
    /// Once `globalMax` is spent (or, for a link the reserve does not admit, its unreserved part), a client source
    /// that asked for fewer than this many links in the global window still gets one, so the limit degrades
    /// instead of switching links off for everyone. Internal callers get none. Default 2.
    public var perSourcePastGlobalMax: Int = 2
    /// The most links sent past `globalMax` per window through `perSourcePastGlobalMax`, so the service never
    /// sends more than `globalMax + pastGlobalMax` in a window. Default 1000.
    public var pastGlobalMax: Int = 1000
    /// Password-reset mails sent to one address per `perAddressWindow`, counted apart from `perAddressMax` (which
    /// counts the other links only), so reset requests cannot spend the owner's sign-in links. Default 3.
    public var perAddressResetMax: Int = 3
    /// Accept password resets and email changes asked for without a verifier challenge, whose links then work for
    /// whoever holds the mail, on any device: for apps released before the challenge was required. Default false:
    /// such a request is refused with `invalid-argument` (sign-in and link emails always need one).
    public var unboundLinksAllowed: Bool = false
    /// Wrong verifiers tolerated before the token is burnt, and wrong codes before a code (and its link) is.
    /// Default 5.
    public var verifierFailuresMax: Int = 5
    /// What a sign-in or link email carries: the link, a six-digit code redeemable on any device with the address
    /// (`completeEmailCode`), or both. The code lives as long as the link (`lifetime`) and shares its row: redeeming
    /// either spends both. Default both.
    public var delivery: EmailLinkDelivery = .both
    /// The link in the email; `{token}` is replaced by the token. Default "foyer://email-link#token={token}"
    /// (a fragment, so the token does not reach web servers' logs).
    public var linkTemplate: String = "foyer://email-link#token={token}"
    /// The link in a password-reset email; `{token}` is replaced by the token. Default
    /// "foyer://password-reset#token={token}" (a fragment, like `linkTemplate`).
    public var passwordResetLinkTemplate: String = "foyer://password-reset#token={token}"
    /// The subject of password-reset emails (a reset link, or the notice that no account has the address).
    public var passwordResetSubject: String = "Reset your password"
    /// The link in the email that confirms a new address; `{token}` is replaced by the token. Default
    /// "foyer://email-change#token={token}".
    public var emailChangeLinkTemplate: String = "foyer://email-change#token={token}"
    /// The subject of the email to a new address, and of the notice to the old one once the change is done.
    public var emailChangeSubject: String = "Confirm your new email address"
    public var emailChangedSubject: String = "Your email address was changed"
    /// The subject of the notice to an account's address when someone asks to change it, before the change.
    public var emailChangeAskedSubject: String = "Someone asked to change your email address"
    /// The subject of the notice to an account's verified address when a sign-in method is added or removed.
    public var credentialsChangedSubject: String = "A sign-in method of your account changed"
    /// The subject of the notice to an account's address once its password was changed or reset.
    public var passwordChangedSubject: String = "Your password was changed"
    /// The text of that notice; `{time}` is replaced by the time of the change (UTC, as "25 November 2026, 04:10
    /// UTC"). It carries no link: the owner who did not make the change asks for a reset in the app.
    public var passwordChangedBody: String = """
        The password of your account was changed on {time}. Every other device signed in to the account was \
        signed out.

        If you did not do this, reset your password now ("Forgot password" in the app): the reset signs out \
        every device again, including whoever changed it.
        """
    /// Subject and sender of the emails.
    public var subject: String = "Your sign-in link"
    public var sender: String = "Foyer <no-reply@localhost>"
    /// Messages kept in the outbox (oldest dropped first). Default 1000.
    public var outboxCapacity: Int = 1000
    /// How long the outbox keeps a message before the janitor deletes it (its link is dead after `lifetime`).
    /// Default 1 hour.
    public var outboxRetention: Duration = .seconds(3600)

    public init() {}
}
