import ArgumentParser
import FoyerAccessTokens
import FoyerGateway
import FoyerGatewayHTTP
import FoyerRPC
import FoyerServiceKit

/// `gateway`: the client-facing API of Foyer.
@main
struct GatewayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gateway",
        abstract: "Foyer's client-facing API: sessions, link-or-merge, delete-everything, quota-gated documents.",
        discussion:
            "Clients connect without the cluster secret and present access tokens per call; the gateway calls the internal services with the secret. Every option can also be set by the environment variable named in its help."
    )

    @OptionGroup var common: ServiceOptions

    @OptionGroup var upstreams: UpstreamAddressOptions
    @OptionGroup(title: "The app's merge and delete hooks") var hooks: AppHookOptions
    @OptionGroup(title: "The sign-up check") var signUpChecks: SignUpCheckOptions
    @Option(help: "cleanup's address. (env: FOYER_CLEANUP_ADDRESS; default: 127.0.0.1:7404)")
    var cleanup: String?
    @Option(
        help: """
            The issuer access tokens must name (identity's --issuer), also the discovery document's issuer: an https \
            URL without query, fragment or final slash (http only for a loopback host). (env: FOYER_ISSUER; default: \
            http://127.0.0.1:7480)
            """
    )
    var issuer: String?
    @Option(help: "The audience access tokens must name. (env: FOYER_AUDIENCE; default: foyer-app)")
    var audience: String?

    @Option(
        help: """
            Comma-separated addresses or networks (CIDR) of load balancers that open every connection with a PROXY \
            protocol header (v1 or v2); the client address is taken from it for those connections only. On the HTTP \
            listener the header is optional; without it, their Forwarded or X-Forwarded-For header names the client. \
            (env: FOYER_TRUSTED_PROXIES; default: none)
            """
    )
    var trustedProxies: String?

    @Option(
        help: """
            Milliseconds for which identity's word that a session is live is trusted: the most a revoked session \
            keeps working here. (env: FOYER_SESSION_CHECK_MS; default: 1000)
            """
    )
    var sessionCheckMs: Int?
    @Option(
        help: """
            identity's access-token lifetime in seconds, for how long refused tokens are remembered. \
            (env: FOYER_ACCESS_TOKEN_SECONDS; default: 900)
            """
    )
    var accessTokenSeconds: Int?
    @Option(
        help:
            "Refresh calls per client address per minute (also the burst). (env: FOYER_REFRESH_PER_MINUTE; default: 120)"
    )
    var refreshPerMinute: Int?
    @Option(
        help:
            "Sign-in calls per client address per minute (also the burst). (env: FOYER_SIGN_IN_PER_MINUTE; default: 30)"
    )
    var signInPerMinute: Int?
    @Option(
        help: """
            Email-link redemptions per client address per minute (also the burst). \
            (env: FOYER_EMAIL_LINK_REDEMPTIONS_PER_MINUTE; default: 20)
            """
    )
    var emailLinkRedemptionsPerMinute: Int?

    @Option(help: "Port of the HTTP/JSON listener. (env: FOYER_HTTP_PORT; default: none, no HTTP listener)")
    var httpPort: Int?
    @Option(help: "Address the HTTP/JSON listener binds. (env: FOYER_HTTP_HOST; default: the binary listener's host)")
    var httpHost: String?
    @Option(
        help: """
            Comma-separated exact origins (https://app.example) whose browsers may call the HTTP API (CORS). \
            (env: FOYER_CORS_ORIGINS; default: none, no CORS headers)
            """
    )
    var corsOrigins: String?
    @Option(
        help: """
            The HTTP API's public base address (https://api.example), for the jwks_uri of \
            /.well-known/openid-configuration. (env: FOYER_PUBLIC_URL; default: none, the address the client connected to)
            """
    )
    var publicURL: String?
    @Option(
        help: """
            The OpenAPI document the HTTP listener serves at /openapi.yaml. \
            (env: FOYER_OPENAPI_PATH; default: docs/openapi.yaml)
            """
    )
    var openapiPath: String?
    @Option(
        help: """
            Serve this HTML file at /example/: the web example (examples/web/index.html) that runs the guest journey \
            with fetch. For trying Foyer out; leave it off in production. (env: FOYER_EXAMPLE_PAGE; default: none)
            """
    )
    var examplePage: String?
    @Option(
        help: """
            Seconds a new connection to the HTTP or admin listener may take to send its first request (its TLS \
            handshake included). (env: FOYER_FIRST_REQUEST_TIMEOUT_SECONDS; default: 10)
            """
    )
    var firstRequestTimeoutSeconds: Int?

    @Option(
        help: """
            Port of the admin listener: the admin API (/admin/v1) and the console (/admin/), for callers with an \
            admin key. (env: FOYER_ADMIN_PORT; default: none, no admin listener)
            """
    )
    var adminPort: Int?
    @Option(
        help: """
            Address the admin listener binds: keep it private. (env: FOYER_ADMIN_HOST; default: 127.0.0.1, whatever \
            --host is)
            """
    )
    var adminHost: String?
    @Flag(
        help: """
            Lets the admin listener bind an address that is not loopback, although it speaks plain HTTP: only behind \
            a private network or a TLS-terminating proxy. (env: FOYER_ADMIN_INSECURE=1)
            """
    )
    var adminInsecure = false
    @Option(
        help: """
            Checks of admin keys not recently seen, per client address per minute (also the burst): a bound on \
            guessing. (env: FOYER_ADMIN_KEY_CHECKS_PER_MINUTE; default: 30, burst 10)
            """
    )
    var adminKeyChecksPerMinute: Int?

    @Flag(
        help: """
            Continue the trace contexts callers send (an HTTP traceparent header; the binary protocol's trace \
            context) instead of starting each request's trace afresh. Only when the callers are trusted, such as an \
            app's own backend: a caller's context picks the trace id and whether the request is sampled. \
            (env: FOYER_CONTINUE_CLIENT_TRACES=1)
            """
    )
    var continueClientTraces = false

    @Flag(
        help: """
            LOAD TESTS ONLY: let guest sign-ins name the source address that sign-up admission counts, so one \
            load generator can act as many clients. Never in production. (env: FOYER_LOAD_TEST_SOURCES=1)
            """
    )
    var loadTestSources = false

    func run() async throws {
        let startup = try ServiceStartup(service: "gateway", defaultPort: 7400, options: common, clientFacing: true)
        if common.checkHealth {
            // The gateway's client port asks no cluster-secret proof.
            let healthy = await ServiceRunner.checkHealth(
                host: startup.host,
                port: startup.port,
                service: "gateway",
                secret: nil,
                tls: startup.healthCheckTLS,
                logger: startup.logger
            )
            throw ExitCode(healthy ? 0 : 1)
        }
        let settings = SettingsReader()
        let clients = try upstreams.clients(startup)
        var configuration = GatewayConfiguration(
            identity: clients.identity,
            guestQuota: clients.guestQuota,
            userData: clients.userData,
            cleanup: try startup.client(of: .cleanup, flag: cleanup)
        )
        configuration.now = startup.now
        configuration.operationAnswerKey = startup.clusterSecret.derivedKey(purpose: "gateway operation answers")
        configuration.appHooks = try hooks.settings()
        configuration.signUpChallengeKey = startup.clusterSecret.derivedKey(purpose: "gateway sign-up challenges")
        configuration.signUpCheck = try signUpChecks.settings(settings)
        configuration.issuer = try settings.value(issuer, .text("--issuer", "FOYER_ISSUER")) ?? configuration.issuer
        if let problem = IssuerURL.problem(with: configuration.issuer) { throw ValidationError(problem) }
        configuration.audience =
            try settings.value(audience, .text("--audience", "FOYER_AUDIENCE")) ?? configuration.audience
        configuration.trustClientSourceForLoadTests = settings.isOn(loadTestSources, "FOYER_LOAD_TEST_SOURCES")
        if configuration.trustClientSourceForLoadTests {
            startup.logger.warning(
                "LOAD-TEST MODE: guest sign-ins may choose the source address admission counts; never use in production"
            )
        }
        try applyLimits(to: &configuration, settings)
        var server = startup.serverConfiguration()
        server.clusterSecret = nil
        let continuesClientTraces = settings.isOn(continueClientTraces, "FOYER_CONTINUE_CLIENT_TRACES")
        server.tracing?.continuesCallerContext = continuesClientTraces
        if let list = try settings.value(trustedProxies, .text("--trusted-proxies", "FOYER_TRUSTED_PROXIES")) {
            do {
                server.trustedProxies = try TrustedProxies(parsing: list)
            } catch let error as RPCError {
                throw ValidationError("--trusted-proxies: \(error.message)")
            }
            if !server.trustedProxies.isEmpty {
                startup.logger.info(
                    "taking client addresses from PROXY headers",
                    metadata: ["proxies": "\(server.trustedProxies.networks.map(\.description).joined(separator: ","))"]
                )
            }
        }
        let gateway = GatewayService.make(configuration: configuration, server: server, logger: startup.logger)
        var services = gateway.services
        // The HTTPS listener's certificate reloads on SIGHUP with the binary listener's.
        var reloadables: [CertificateReloadService.Reloadable] = []
        if var http = try httpConfiguration(startup, settings) {
            http.trustedProxies = server.trustedProxies
            http.tls = startup.tls
            http.continuesTraceparent = continuesClientTraces
            let httpServer = try GatewayHTTPServer(gateway: gateway, configuration: http, logger: startup.logger)
            services.append(httpServer)
            if let certificate = httpServer.certificate { reloadables.append(("http", certificate.reload)) }
            startup.logger.info(
                http.tls == nil ? "serving HTTP" : "serving HTTPS",
                metadata: ["http.host": "\(http.host)", "http.port": "\(http.port)"]
            )
        }
        if let port = try settings.value(adminPort, .int("--admin-port", "FOYER_ADMIN_PORT", in: 0...65535)) {
            var admin = AdminHTTPConfiguration()
            admin.port = port
            admin.host = try settings.value(adminHost, .text("--admin-host", "FOYER_ADMIN_HOST")) ?? admin.host
            guard AdminHTTPConfiguration.isLoopback(admin.host) || settings.isOn(adminInsecure, "FOYER_ADMIN_INSECURE")
            else {
                throw ValidationError(
                    "--admin-host \(admin.host) is not a loopback address and the admin listener speaks plain HTTP: "
                        + "bind it to loopback, or pass --admin-insecure (FOYER_ADMIN_INSECURE=1) if a private "
                        + "network or a TLS-terminating proxy protects it"
                )
            }
            admin.firstRequestTimeoutSeconds = try firstRequestTimeout(settings) ?? admin.firstRequestTimeoutSeconds
            services.append(AdminHTTPServer(gateway: gateway, configuration: admin, logger: startup.logger))
            startup.logger.info(
                "serving the admin API",
                metadata: ["admin.host": "\(admin.host)", "admin.port": "\(admin.port)"]
            )
        }
        try await ServiceRunner.run(
            services: startup.withTelemetry(startup.withCertificateReload(services, also: reloadables)),
            logger: startup.logger
        )
    }

    /// The HTTP listener's settings; nil when no HTTP port is set.
    private func httpConfiguration(
        _ startup: ServiceStartup,
        _ settings: SettingsReader
    ) throws -> GatewayHTTPConfiguration? {
        guard let port = try settings.value(httpPort, .int("--http-port", "FOYER_HTTP_PORT", in: 0...65535)) else {
            return nil
        }
        var http = GatewayHTTPConfiguration()
        http.port = port
        http.host = try settings.value(httpHost, .text("--http-host", "FOYER_HTTP_HOST")) ?? startup.host
        http.corsOrigins = Set(
            try settings.value(parsing: corsOrigins, .list("--cors-origins", "FOYER_CORS_ORIGINS")) ?? []
        )
        http.publicURL = try settings.value(publicURL, .text("--public-url", "FOYER_PUBLIC_URL"))
        http.openAPIPath =
            try settings.value(openapiPath, .text("--openapi-path", "FOYER_OPENAPI_PATH")) ?? "docs/openapi.yaml"
        http.examplePagePath = try settings.value(examplePage, .text("--example-page", "FOYER_EXAMPLE_PAGE"))
        // The connection limits are the binary listener's flags (`--max-connections`, `...-per-source`,
        // `...-per-network`); each listener counts its own connections.
        (http.connectionsMax, http.connectionsPerSourceMax, http.connectionsPerNetworkMax) = startup.connectionLimits
        http.firstRequestTimeoutSeconds = try firstRequestTimeout(settings) ?? http.firstRequestTimeoutSeconds
        return http
    }

    private func firstRequestTimeout(_ settings: SettingsReader) throws -> Int64? {
        let setting = Setting<Int>.int(
            "--first-request-timeout-seconds",
            "FOYER_FIRST_REQUEST_TIMEOUT_SECONDS",
            in: 1...3600
        )
        return try settings.value(firstRequestTimeoutSeconds, setting).map(Int64.init)
    }

    private func applyLimits(to configuration: inout GatewayConfiguration, _ settings: SettingsReader) throws {
        if let milliseconds = try settings.value(
            sessionCheckMs,
            .positive("--session-check-ms", "FOYER_SESSION_CHECK_MS")
        ) {
            configuration.sessionCheckInterval = .milliseconds(milliseconds)
        }
        if let seconds = try settings.value(
            accessTokenSeconds,
            .positive("--access-token-seconds", "FOYER_ACCESS_TOKEN_SECONDS")
        ) {
            configuration.accessTokenLifetimeMax = .seconds(seconds)
        }
        let limits: [(Int?, Setting<Int>, WritableKeyPath<SourceLimits, RateLimit>)] = [
            (refreshPerMinute, .positive("--refresh-per-minute", "FOYER_REFRESH_PER_MINUTE"), \.refresh),
            (signInPerMinute, .positive("--sign-in-per-minute", "FOYER_SIGN_IN_PER_MINUTE"), \.signIn),
            (
                emailLinkRedemptionsPerMinute,
                .positive("--email-link-redemptions-per-minute", "FOYER_EMAIL_LINK_REDEMPTIONS_PER_MINUTE"),
                \.emailLinkCompletion
            ),
        ]
        for (flag, setting, limit) in limits {
            if let perMinute = try settings.value(flag, setting) {
                configuration.sourceLimits[keyPath: limit] = RateLimit(perMinute: perMinute, burst: perMinute)
            }
        }
        if let perMinute = try settings.value(
            adminKeyChecksPerMinute,
            .positive("--admin-key-checks-per-minute", "FOYER_ADMIN_KEY_CHECKS_PER_MINUTE")
        ) {
            configuration.adminKeyCheckLimit = RateLimit(perMinute: perMinute, burst: perMinute)
        }
    }
}
