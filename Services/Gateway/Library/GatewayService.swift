import Foundation
import FoyerAPI
import FoyerAccessTokens
import FoyerLifecycle
public import FoyerRPC
import FoyerWebhooks
import FoyerWire
public import Logging
public import ServiceLifecycle

/// The gateway: the client-facing API, composing identity, guest-quota, user-data and cleanup.
///
/// Stateless: everything it knows is in the services (plus a per-replica memory of recent operation answers).
public final class GatewayService: Sendable {
    /// The client listener; run it in a ServiceGroup together with `clients`.
    public let server: RPCServer
    /// The clients of the internal services; they are services too (graceful shutdown closes their pools).
    public let clients: [RPCClient]
    /// The handlers of every gateway method, as the client listener serves them: another transport (the HTTP
    /// edge) dispatches to the same router, so both run the same code.
    public let router: RPCRouter
    /// The gateway's settings (issuer, caps) for the edges that need them.
    public let configuration: GatewayConfiguration
    /// The client of identity (one of `clients`), for the HTTP edge's readiness check.
    public let identity: RPCClient
    /// The operators' operations, for the admin listener.
    public let admin: GatewayAdmin

    public static func make(
        configuration: GatewayConfiguration,
        server: RPCServerConfiguration,
        logger: Logger
    ) -> GatewayService {
        let core = GatewayCore(configuration: configuration, logger: logger)
        var router = RPCRouter(serving: GatewayMethods.all)
        core.registerSessions(on: &router)
        core.registerAccounts(on: &router)
        core.registerCounters(on: &router)
        core.registerAccountManagement(on: &router)
        core.registerDocuments(on: &router)
        return GatewayService(
            server: RPCServer(configuration: server, router: router, logger: logger),
            clients: core.clients,
            identity: core.identity,
            admin: GatewayAdmin(core: core),
            router: router,
            configuration: configuration
        )
    }

    private init(
        server: RPCServer,
        clients: [RPCClient],
        identity: RPCClient,
        admin: GatewayAdmin,
        router: RPCRouter,
        configuration: GatewayConfiguration
    ) {
        self.server = server
        self.clients = clients
        self.identity = identity
        self.admin = admin
        self.router = router
        self.configuration = configuration
    }

    /// Everything to run. A ServiceGroup stops services in reverse order: the listener drains first, and the
    /// clients it still needs close last.
    public var services: [any Service] { clients + [server] }
}

/// What every handler of the gateway shares.
final class GatewayCore: Sendable {
    let configuration: GatewayConfiguration
    let identity: RPCClient
    let guestQuota: RPCClient
    let userData: RPCClient
    let cleanup: RPCClient
    let sagas: AccountSagas
    let keys: SigningKeyCache
    let sessions: SessionChecks
    let refreshLimit: SourceRateLimiter
    let signInLimit: SourceRateLimiter
    let emailLinkLimit: SourceRateLimiter
    let validator: AccessTokenValidator
    let results: OperationResults
    let activity: ActivityThrottle
    let documents = DocumentVersions()
    /// The deployment's sign-up check; nil for none.
    let signUpCheck: (any SignUpCheck)?
    let signUpCheckMetrics: SignUpCheckMetrics?
    let logger: Logger

    var clients: [RPCClient] { [identity, guestQuota, userData, cleanup] }
    var now: Date { configuration.now() }

    init(configuration: GatewayConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        identity = RPCClient(configuration: configuration.identity, logger: logger)
        guestQuota = RPCClient(configuration: configuration.guestQuota, logger: logger)
        userData = RPCClient(configuration: configuration.userData, logger: logger)
        cleanup = RPCClient(configuration: configuration.cleanup, logger: logger)
        sagas = AccountSagas(
            identity: identity,
            guestQuota: guestQuota,
            userData: userData,
            recorder: RemoteDeletionRecorder(cleanup: cleanup),
            hooks: configuration.appHooks.map { AppHooks(settings: $0, http: URLSessionHTTPClient()) },
            logger: logger
        )
        keys = SigningKeyCache(
            identity: identity,
            refetchInterval: configuration.keyRefetchInterval,
            publishedSetLifetime: configuration.publishedKeySetLifetime,
            logger: logger
        )
        sessions = SessionChecks(
            freshness: configuration.sessionCheckInterval,
            refusalMemory: configuration.accessTokenLifetimeMax + configuration.accessTokenClockSkew,
            capacity: configuration.sessionChecksMax
        )
        let limits = configuration.sourceLimits
        refreshLimit = SourceRateLimiter(name: "refresh", limit: limits.refresh, sourcesMax: limits.sourcesMax)
        signInLimit = SourceRateLimiter(name: "sign-in", limit: limits.signIn, sourcesMax: limits.sourcesMax)
        emailLinkLimit = SourceRateLimiter(
            name: "email-link",
            limit: limits.emailLinkCompletion,
            sourcesMax: limits.sourcesMax
        )
        validator = AccessTokenValidator(
            issuer: configuration.issuer,
            audience: configuration.audience,
            clockSkew: configuration.accessTokenClockSkew
        )
        results = OperationResults(
            capacity: configuration.rememberedOperationsMax,
            lifetime: configuration.rememberedOperationLifetime
        )
        activity = ActivityThrottle(interval: configuration.activityInterval)
        switch configuration.signUpCheck {
        case .none:
            signUpCheck = nil
        case .proofOfWork(let settings):
            signUpCheck = ProofOfWorkCheck(settings: settings, key: configuration.signUpChallengeKey)
        case .siteverify(let settings):
            signUpCheck = SiteverifyCheck(settings: settings, http: URLSessionHTTPClient())
        }
        signUpCheckMetrics = signUpCheck.map { SignUpCheckMetrics(check: $0.name) }
    }
}
