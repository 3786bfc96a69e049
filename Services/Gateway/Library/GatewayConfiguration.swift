public import Foundation
import FoyerCrypto
public import FoyerLifecycle
public import FoyerRPC

/// Everything the gateway can be told, with its defaults. The executable maps flags and environment to it.
public struct GatewayConfiguration: Sendable {
    /// The internal services (cluster-secret authenticated clients).
    public var identity: RPCClientConfiguration
    public var guestQuota: RPCClientConfiguration
    public var userData: RPCClientConfiguration
    public var cleanup: RPCClientConfiguration

    /// What access tokens must say (identity's `--issuer` and `--audience`); the issuer is also the discovery
    /// document's `issuer`.
    public var issuer = "http://127.0.0.1:7480"
    public var audience = "foyer-app"
    public var accessTokenClockSkew: Duration = .seconds(60)
    /// How often the cached signing keys may be refetched from identity when a token names an unknown key.
    public var keyRefetchInterval: Duration = .seconds(30)
    /// How long the key set served by `jwks` is reused before it is fetched again (one fetch per interval however
    /// many clients ask, so unauthenticated callers cannot turn into calls to identity). Default 60 s.
    public var publishedKeySetLifetime: Duration = .seconds(60)
    /// The longest access-token lifetime identity issues (its `--access-token-lifetime`): how long a refused
    /// token is remembered as refused. Default 15 minutes.
    public var accessTokenLifetimeMax: Duration = .seconds(15 * 60)

    /// How long identity's word that a session is live is trusted before a data call asks again: the bound on how
    /// long a revoked session keeps working at this gateway. Default 1 s.
    public var sessionCheckInterval: Duration = .seconds(1)
    /// Most session answers remembered (a live answer lasts `sessionCheckInterval`, a refusal until the token
    /// expires). Default 100,000.
    public var sessionChecksMax = 100_000

    /// Calls accepted per client address (IPv6 by /64), per minute with a burst, for the calls that anyone can make
    /// without an access token. Sign-up admission has its own limit in guest-quota, and password hashing and
    /// email sending have theirs in identity.
    public var sourceLimits = SourceLimits()

    /// Plans in guest-quota for guests and for members, and the counters the gateway charges for documents.
    public var guestPlan = "guest"
    public var memberPlan = "member"
    public var documentsCounter = "documents"
    public var bytesCounter = "bytes"
    /// The feature a guest lacks for `importDocuments`.
    public var importFeature = "import"

    /// The app's merge and delete hooks (cleanup must be given the same); nil: none.
    public var appHooks: AppHookSettings?
    /// How often at most the gateway tells identity that a user was active (per user, per replica).
    public var activityInterval: Duration = .seconds(600)
    /// Operation results remembered, so a retried link or delete returns the first answer: in this replica's memory
    /// (at most `rememberedOperationsMax`) and, for every replica, sealed in identity.
    public var rememberedOperationsMax = 10_000
    public var rememberedOperationLifetime: Duration = .seconds(600)
    /// The key answers are sealed under in identity: the same on every replica of the cluster (the executable
    /// derives it from the cluster secret). A random key by default, which only this process can open.
    public var operationAnswerKey: [UInt8] = SecureRandom.bytes(count: 32)

    /// How long an admin key identity vouched for is trusted before it is checked again: the bound on how long a
    /// key revoked through another replica keeps working here. Default 10 s.
    public var adminKeyCheckInterval: Duration = .seconds(10)
    /// Admin-key checks per client address that the admin listener sends to identity (a key already vouched for
    /// costs none), per minute with a burst: guessing keys is slow, an operator never notices. Default 30 a minute,
    /// burst 10.
    public var adminKeyCheckLimit = RateLimit(perMinute: 30, burst: 10)

    /// The check guest sign-ups pass before admission (`--sign-up-check`). Default none: every guest sign-in goes
    /// to admission, as clients released before checks existed expect.
    public var signUpCheck: SignUpCheckSettings = .none
    /// The key proof-of-work challenges are signed with: the same on every replica (the executable derives it from
    /// the cluster secret), so a challenge from one gateway is good at another. Random by default (this process
    /// only).
    public var signUpChallengeKey: [UInt8] = SecureRandom.bytes(count: 32)

    /// LOAD TESTS ONLY: honour the `loadTestSource` of `guestSignIn`, so one load generator can look like many
    /// sources to sign-up admission. Off by default; never on in production, where it would let any client pick
    /// the address the per-source limit counts.
    public var trustClientSourceForLoadTests = false

    /// The clock (tests inject one).
    public var now: @Sendable () -> Date = { Date() }

    public init(
        identity: RPCClientConfiguration,
        guestQuota: RPCClientConfiguration,
        userData: RPCClientConfiguration,
        cleanup: RPCClientConfiguration
    ) {
        self.identity = identity
        self.guestQuota = guestQuota
        self.userData = userData
        self.cleanup = cleanup
    }
}

/// Per-source limits on the gateway's unauthenticated calls (see `GatewayConfiguration.sourceLimits`).
public struct SourceLimits: Sendable, Equatable {
    /// `refresh`. Default 120 a minute, burst 120 (an app refreshes once per access-token lifetime per device, so
    /// this leaves room for many devices behind one address).
    public var refresh = RateLimit(perMinute: 120, burst: 120)
    /// `signIn` with any credential, device-key challenges and registrations, and guest sign-ins that a sign-up
    /// check verifies (`--sign-up-check`). Default 30 a minute, burst 30.
    public var signIn = RateLimit(perMinute: 30, burst: 30)
    /// Redeeming an email link (`signIn` or `link` with an email-link token): on top of `signIn` for sign-ins.
    /// Default 20 a minute, burst 20.
    public var emailLinkCompletion = RateLimit(perMinute: 20, burst: 20)
    /// Most sources tracked at once (memory bound); idle ones are dropped first. Default 100,000.
    public var sourcesMax = 100_000

    public init() {}
}

/// A token bucket's rate and size: `perMinute` calls a minute on average, at most `burst` at once.
public struct RateLimit: Sendable, Equatable {
    public var perMinute: Int
    public var burst: Int

    public init(perMinute: Int, burst: Int) {
        self.perMinute = perMinute
        self.burst = burst
    }
}
