import Foundation
import FoyerAPI
public import FoyerRPC
public import FoyerStorage
import FoyerWebhooks
public import Logging
public import ServiceLifecycle

/// The identity service: who a user is (guests, credentials, sessions, signing keys, the account state machine).
///
/// ```swift
/// let service = try await IdentityService.make(configuration: configuration, server: serverConfiguration, logger: logger)
/// try await ServiceGroup(services: [service.server] + service.backgroundServices, ...).run()
/// try await service.close()
/// ```
public final class IdentityService: Sendable {
    /// The RPC server hosting identity's methods; run it (in a `ServiceGroup`).
    public let server: RPCServer
    /// Periodic work (pruning expired rows, reloading signing keys) and, with webhooks, the event deliverer: run these
    /// beside the server. Each loop ends on graceful shutdown.
    public var backgroundServices: [any Service] {
        var services: [any Service] = [IdentityJanitor(core: core)]
        if let webhooks = core.configuration.webhooks, let http {
            services.append(EventDeliverer(core: core, settings: webhooks, http: http))
        }
        return services
    }
    /// Counters of what the service did.
    public let statistics: IdentityStatistics

    private let core: IdentityCore
    private let ownsDatabase: Bool
    private let http: URLSessionHTTPClient?

    /// Opens the database named by `configuration.database`, migrates it, seals the signing keys with the
    /// key-encryption key if one is configured (refusing keys sealed with a key it does not have), loads (or
    /// creates, on first start) them, and builds the server. Fails, leaving nothing open, on any of those.
    public static func make(
        configuration: IdentityConfiguration,
        server: RPCServerConfiguration,
        logger: Logger
    ) async throws -> IdentityService {
        try await FoyerDatabase.open(configuration.database, logger: logger) { database in
            try await make(
                configuration: configuration,
                database: database,
                ownsDatabase: true,
                server: server,
                logger: logger
            )
        }
    }

    /// Like ``make(configuration:server:logger:)`` on a database the caller opened and will close (tests, a
    /// process that hosts several services on one database); `configuration.database` is not used.
    public static func make(
        configuration: IdentityConfiguration,
        database: FoyerDatabase,
        server: RPCServerConfiguration,
        logger: Logger
    ) async throws -> IdentityService {
        try await make(
            configuration: configuration,
            database: database,
            ownsDatabase: false,
            server: server,
            logger: logger
        )
    }

    private static func make(
        configuration: IdentityConfiguration,
        database: FoyerDatabase,
        ownsDatabase: Bool,
        server: RPCServerConfiguration,
        logger: Logger
    ) async throws -> IdentityService {
        try IdentityConfigurationCheck.validate(configuration)
        try await database.migrate(service: IdentityMigrations.service, migrations: IdentityMigrations.all)
        let keys = SigningKeyRing(
            algorithm: configuration.signingAlgorithm,
            publicationWindow: configuration.accessTokenLifetime + configuration.accessTokenClockSkew,
            reloadInterval: configuration.signingKeyReloadInterval,
            activationDelay: configuration.signingKeyActivationDelay,
            encryptionKey: configuration.signingKeyEncryptionKey,
            previousEncryptionKey: configuration.previousSigningKeyEncryptionKey
        )
        let sealed = try await keys.prepareStorage(database)
        try await keys.load(database, now: configuration.now())
        if let keyID = try await keys.rotateToConfiguredAlgorithm(database, now: configuration.now()) {
            logger.notice(
                "signing key rotated to the configured algorithm",
                metadata: ["key.id": "\(keyID)", "key.algorithm": "\(configuration.signingAlgorithm.rawValue)"]
            )
        }
        announceKeyStorage(configuration, sealed: sealed, logger: logger)
        let statistics = IdentityStatistics()
        let http = needsHTTP(configuration) ? URLSessionHTTPClient() : nil
        let core = IdentityCore(
            configuration: configuration,
            database: database,
            keys: keys,
            hasher: PasswordHasher(policy: configuration.password, statistics: statistics),
            mail: try mailDelivery(configuration, http: http, logger: logger),
            apple: configuration.apple.map { verifier(.apple, $0, configuration, http, statistics) },
            google: configuration.google.map { verifier(.google, $0, configuration, http, statistics) },
            appleEndpoint: try appleEndpoint(configuration, http: http, logger: logger),
            statistics: statistics,
            logger: logger
        )
        var router = RPCRouter(serving: IdentityMethods.all)
        IdentityRoutes.register(core, on: &router)
        let rpcServer = RPCServer(configuration: server, router: router, logger: logger)
        return IdentityService(
            core: core,
            server: rpcServer,
            statistics: statistics,
            ownsDatabase: ownsDatabase,
            http: http
        )
    }

    private init(
        core: IdentityCore,
        server: RPCServer,
        statistics: IdentityStatistics,
        ownsDatabase: Bool,
        http: URLSessionHTTPClient?
    ) {
        self.core = core
        self.server = server
        self.statistics = statistics
        self.ownsDatabase = ownsDatabase
        self.http = http
    }

    /// Closes the database (if `make` opened it) and the HTTP client. Call it after the server has stopped.
    public func close() async throws {
        http?.close()
        if ownsDatabase { try await core.database.close() }
    }

    /// The published signing keys as JWK Set JSON, for the JWKS file an app's backend reads.
    public func jwksJSON() async throws -> [UInt8] {
        try core.jwks().json
    }

    /// Runs one maintenance round now (what the background janitor does periodically).
    public func runMaintenance() async throws {
        try await core.runMaintenance()
    }

    /// How the signing keys are kept, in the log: a warning when in clear.
    private static func announceKeyStorage(_ configuration: IdentityConfiguration, sealed: Int, logger: Logger) {
        guard let kek = configuration.signingKeyEncryptionKey else {
            logger.warning(
                "signing keys are stored in clear: no key-encryption key (--signing-key-encryption-key-file); whoever reads identity's database can sign access tokens"
            )
            return
        }
        logger.notice(
            "signing keys are sealed with the key-encryption key",
            metadata: ["kek.id": "\(kek.id)", "keys.sealed_now": "\(sealed)"]
        )
    }

    private static func needsHTTP(_ configuration: IdentityConfiguration) -> Bool {
        if case .webhook = configuration.mailer { return true }
        if configuration.webhooks != nil { return true }
        if configuration.appleRevocation != nil { return true }
        return [configuration.apple, configuration.google].contains { settings in
            if case .url = settings?.keys { return true }
            return false
        }
    }

    /// The mail route, announced in the log. The configuration check made sure that the outbox runs only in local
    /// mode, and `needsHTTP` that there is an HTTP client for a webhook; a webhook URL that does not parse throws
    /// ``IdentityConfigurationError`` here too.
    static func mailDelivery(
        _ configuration: IdentityConfiguration,
        http: URLSessionHTTPClient?,
        logger: Logger
    ) throws -> MailDelivery {
        if configuration.localMode {
            logger.warning(
                "LOCAL MODE: for a developer's machine and tests only; never let it face the internet",
                metadata: ["mail.mailer": "\(configuration.mailer.name)"]
            )
        }
        switch configuration.mailer {
        case .disabled:
            logger.warning("no mailer configured: email links are refused with mail-unavailable")
            return .unavailable
        case .outbox:
            logger.warning(
                "LOCAL MODE: email links are kept in the outbox (identity_outbox), readable with the cluster secret"
            )
            return .outbox(OutboxMailer(capacity: configuration.emailLink.outboxCapacity))
        case .smtp(let settings):
            logger.info("email links go out by SMTP", metadata: ["mail.smtp": "\(settings)"])
            do {
                return .external(try SMTPMailer(settings: settings, logger: logger))
            } catch {
                throw IdentityConfigurationError("smtp: cannot load the TLS settings: \(error)")
            }
        case .sendmail(let path):
            return .external(SendmailMailer(path: path, timeout: .seconds(30)))
        case .webhook(let text, let secret):
            guard let url = try? Webhook.endpoint(text), let secret else {
                throw IdentityConfigurationError("the mail webhook needs an https URL and a secret")
            }
            let client = http ?? URLSessionHTTPClient()
            return .external(
                WebhookMailer(url: url, secret: secret, http: client, timeout: .seconds(10), now: configuration.now)
            )
        }
    }

    /// Sign in with Apple's token endpoint when its settings are given (the key file read now, so a bad one stops
    /// the start); otherwise nil, with a warning when Apple sign-in is on, since codes will be ignored.
    private static func appleEndpoint(
        _ configuration: IdentityConfiguration,
        http: URLSessionHTTPClient?,
        logger: Logger
    ) throws -> AppleTokenEndpoint? {
        guard let settings = configuration.appleRevocation else {
            if configuration.apple != nil {
                logger.warning(
                    "Sign in with Apple without its client-secret settings (--apple-team-id, --apple-key-id, --apple-key-file): authorization codes are ignored and no Apple token is revoked when an account is deleted"
                )
            }
            return nil
        }
        guard let http else { throw IdentityConfigurationError("Sign in with Apple revocation needs an HTTP client") }
        logger.info(
            "Sign in with Apple tokens are revoked on deletion",
            metadata: ["apple.endpoint": "\(settings.endpoint)"]
        )
        return AppleTokenEndpoint(settings: settings, secret: try AppleClientSecret(settings: settings), http: http)
    }

    private static func verifier(
        _ provider: IdentityProvider,
        _ settings: ProviderSettings,
        _ configuration: IdentityConfiguration,
        _ http: URLSessionHTTPClient?,
        _ statistics: IdentityStatistics
    ) -> ProviderTokenVerifier {
        ProviderTokenVerifier(
            provider: provider,
            settings: settings,
            keys: ProviderKeyCache(settings: settings, http: http, clock: configuration.now, statistics: statistics)
        )
    }
}
