public import Foundation
public import FoyerRPC

/// Everything the gateway can be told, with its defaults. The executable maps flags and environment to it.
public struct GatewayConfiguration: Sendable {
    /// The internal services (cluster-secret authenticated clients).
    public var identity: RPCClientConfiguration
    public var guestQuota: RPCClientConfiguration
    public var userData: RPCClientConfiguration
    public var cleanup: RPCClientConfiguration

    /// What access tokens must say (identity's `--issuer` and `--audience`).
    public var issuer = "foyer"
    public var audience = "foyer-app"
    public var accessTokenClockSkew: Duration = .seconds(60)
    /// How often the cached signing keys may be refetched from identity when a token names an unknown key.
    public var keyRefetchInterval: Duration = .seconds(30)

    /// Plans in guest-quota for guests and for members, and the counters the gateway charges for documents.
    public var guestPlan = "guest"
    public var memberPlan = "member"
    public var documentsCounter = "documents"
    public var bytesCounter = "bytes"
    /// The feature a guest lacks for `importDocuments`.
    public var importFeature = "import"

    /// How often at most the gateway tells identity that a user was active (per user, per replica).
    public var activityInterval: Duration = .seconds(600)
    /// Operation results remembered per replica, so a retried link or delete returns the first answer.
    public var rememberedOperationsMax = 10_000
    public var rememberedOperationLifetime: Duration = .seconds(600)

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
