public import Foundation
public import FoyerCrypto
public import FoyerStorage

/// Every setting of the identity service, with its default. Plain data: the executable maps flags and
/// environment variables onto it, tests build it directly (with cheap scrypt parameters and a test clock).
public struct IdentityConfiguration: Sendable {
    /// Where identity keeps its tables (SQLite file or PostgreSQL URL).
    public var database: DatabaseConfiguration

    // MARK: Access tokens

    /// `iss` of the access tokens. Default "foyer".
    public var issuer: String = "foyer"
    /// `aud` of the access tokens. Default "foyer-app".
    public var audience: String = "foyer-app"
    /// Lifetime of an access token (`exp - iat`). Default 15 minutes.
    public var accessTokenLifetime: Duration = .seconds(15 * 60)
    /// Clock difference tolerated when checking our own tokens' `exp` and `iat`. Default 60 s.
    public var accessTokenClockSkew: Duration = .seconds(60)
    /// How often signing keys are reloaded from the database (so replicas see a rotation), and the least time
    /// between two reloads caused by an unknown `kid`. Default 60 s.
    public var signingKeyReloadInterval: Duration = .seconds(60)

    // MARK: Sessions and refresh tokens

    /// A session whose refresh token is not used for this long expires. Default 30 days.
    public var refreshIdleTimeout: Duration = .seconds(30 * 86_400)
    /// A session expires this long after it began, however often it is refreshed. Default 365 days (guests keep
    /// their account only through their refresh token, so this is long; see the README).
    public var refreshAbsoluteLifetime: Duration = .seconds(365 * 86_400)
    /// How long after a rotation the immediate predecessor may be presented again (a retry after a lost
    /// response) and get the same successor. Default 30 s.
    public var refreshReuseGrace: Duration = .seconds(30)
    /// How long a guest sign-in's idempotency key returns the same guest. Default 24 hours.
    public var guestIdempotencyWindow: Duration = .seconds(86_400)

    // MARK: Credentials

    /// Password hashing and the password policy.
    public var password = PasswordPolicy()
    /// The limit on failed password attempts per email address.
    public var failedLogins = FailedLoginPolicy()
    /// Passwordless email links.
    public var emailLink = EmailLinkSettings()
    /// How email links are delivered. Default: the outbox (local mode), readable with `listOutbox`.
    public var mailer: MailerChoice = .outbox
    /// Sign in with Apple; `nil` (the default) refuses Apple tokens with `provider-not-configured`.
    public var apple: ProviderSettings?
    /// Sign in with Google; `nil` (the default) refuses Google tokens with `provider-not-configured`.
    public var google: ProviderSettings?
    /// How long a conflict ticket can be redeemed. Default 10 minutes.
    public var conflictTicketLifetime: Duration = .seconds(600)

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
    /// scrypt cost and memory ceiling for new hashes. Default N = 2^17, r = 8, p = 1, maxmem 256 MiB
    /// (`ScryptParameters.interactive`). Stored hashes with lower parameters are rehashed at the next sign-in.
    public var scrypt: ScryptParameters = .interactive
    /// Hashes computed at once (each takes about 128 MiB and 0.3 s at the default cost). Default 2.
    public var hashConcurrencyMax: Int = 2
    /// Requests that may wait for a hashing slot; beyond it `password-hashing-busy`. Default 64.
    public var hashQueueMax: Int = 64
    /// Fewest characters. Default 8 (ASVS 6.2.1).
    public var minimumLength: Int = 8
    /// Most UTF-8 bytes, checked before any hashing. Default 256 (so 64-character passwords in any script fit).
    public var maximumByteCount: Int = 256
    /// Refused passwords (compared case-insensitively). Default: a short built-in list of the most common ones;
    /// deployments should load a longer list (ASVS 6.2.4 asks for the top 3000).
    public var blocklist: Set<String> = CommonPasswords.builtIn

    public init() {}
}

/// Failed password attempts per email address (known or not, so the limit reveals nothing): the first
/// `freeAttempts` cost nothing, each further one makes the next wait twice as long, up to `maximumDelay`, so
/// the owner is never locked out for longer than that and at most about 3600 / maximumDelay guesses fit in an
/// hour. A successful sign-in, or `resetAfter` without failures, clears the count.
public struct FailedLoginPolicy: Sendable {
    public var freeAttempts: Int = 5
    public var initialDelay: Duration = .seconds(1)
    public var maximumDelay: Duration = .seconds(60)
    public var resetAfter: Duration = .seconds(3600)

    public init() {}
}

/// Passwordless email links.
public struct EmailLinkSettings: Sendable {
    /// How long a link token can be redeemed. Default 10 minutes (ASVS 6.5.5).
    public var lifetime: Duration = .seconds(600)
    /// Links sent to one address per window; beyond it `too-many-attempts`. Default 5 per hour.
    public var perAddressMax: Int = 5
    public var perAddressWindow: Duration = .seconds(3600)
    /// Wrong verifiers tolerated before the token is burnt. Default 5.
    public var verifierFailuresMax: Int = 5
    /// The link in the email; `{token}` is replaced by the token. Default "foyer://email-link#token={token}"
    /// (a fragment, so the token does not reach web servers' logs).
    public var linkTemplate: String = "foyer://email-link#token={token}"
    /// Subject and sender of the emails.
    public var subject: String = "Your sign-in link"
    public var sender: String = "Foyer <no-reply@localhost>"
    /// Messages kept in the outbox (oldest dropped first). Default 1000.
    public var outboxCapacity: Int = 1000

    public init() {}
}

/// How emails are delivered.
public enum MailerChoice: Sendable, Equatable {
    /// Into the database's outbox table, readable with `listOutbox` (local mode; the default).
    case outbox
    /// Through a `sendmail`-compatible program, run as `path -t -i` with the message on stdin.
    case sendmail(path: String)
    /// As a JSON POST to a URL; with a secret, the body's HMAC-SHA-256 is sent in `X-Foyer-Signature`.
    case webhook(url: String, secret: String? = nil)
}
