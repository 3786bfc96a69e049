import Foundation
import FoyerAPI
import FoyerCleanup
import FoyerClient
import FoyerCrypto
import FoyerGateway
import FoyerGuestQuota
import FoyerIdentity
import FoyerRPC
import FoyerServiceKit
import FoyerStorage
import FoyerTestSupport
import FoyerUserData
import Logging
import Synchronization

/// The whole Foyer stack in-process: identity, guest-quota, user-data, cleanup and the gateway, each started with
/// its `make` function on a free port over its own SQLite file in one temporary directory, all sharing one
/// test clock. Identity hashes passwords with cheap scrypt parameters so the suite stays fast.
///
/// (It lives in this test target, not in FoyerTestSupport, because FoyerTestSupport must not depend on the
/// service libraries, which depend on it.)
struct Stack: Sendable {
    /// The clock of every service (tokens, quotas, TTLs). Clients use the real clock unless given this one.
    let clock: TestClock
    let gatewayPort: Int
    let cleanupPort: Int
    /// identity's listener (cluster secret required): the outbox's operator path.
    let identityPort: Int
    /// The temporary directory holding the databases (and anything a test writes there).
    let directory: URL
    /// The in-process gateway (its router serves the HTTP edge's tests).
    let gateway: GatewayService
    /// identity's listener, for the tests of what happens when it goes away.
    let identityServer: RPCServer

    /// A client of the gateway; the caller shuts it down.
    func client(
        session: SessionTokens? = nil,
        sharedClock: Bool = true,
        adjust: (inout FoyerClientConfiguration) -> Void = { _ in },
        sessionDidChange: (@Sendable (SessionTokens?) -> Void)? = nil
    ) -> FoyerClient {
        FoyerClient(
            configuration: clientConfiguration(sharedClock: sharedClock, adjust: adjust),
            session: session,
            logger: TestLogging.logger("foyer.test.client"),
            sessionDidChange: sessionDidChange
        )
    }

    /// Runs `body` with a client, shutting it down afterwards (`withFoyerClient` on this stack's gateway).
    func withClient<T: Sendable>(
        session: SessionTokens? = nil,
        sharedClock: Bool = true,
        adjust: (inout FoyerClientConfiguration) -> Void = { _ in },
        sessionDidChange: (@Sendable (SessionTokens?) -> Void)? = nil,
        _ body: (FoyerClient) async throws -> T
    ) async throws -> T {
        try await withFoyerClient(
            configuration: clientConfiguration(sharedClock: sharedClock, adjust: adjust),
            session: session,
            logger: TestLogging.logger("foyer.test.client"),
            sessionDidChange: sessionDidChange,
            body
        )
    }

    /// The configuration of a client of the gateway: on the stack's clock unless `sharedClock` is false.
    private func clientConfiguration(
        sharedClock: Bool,
        adjust: (inout FoyerClientConfiguration) -> Void
    ) -> FoyerClientConfiguration {
        var configuration = FoyerClientConfiguration(host: "127.0.0.1", port: gatewayPort)
        configuration.peerName = "foyer-client-tests"
        if sharedClock { configuration.now = clock.now }
        adjust(&configuration)
        return configuration
    }

    /// An operator's client of cleanup (with the test cluster secret); the caller shuts it down.
    func cleanupClient() -> FoyerCleanupClient {
        FoyerCleanupClient(
            host: "127.0.0.1",
            port: cleanupPort,
            secret: testClusterSecret,
            callTimeout: .seconds(30),
            logger: TestLogging.logger("foyer.test.cleanup-client")
        )
    }

    /// The newest messages identity keeps in its outbox (local mode), read as an operator does: on identity's own
    /// listener with the cluster secret.
    func outbox(to recipient: String? = nil, limit: Int = 20) async throws -> [OutboxMessage] {
        try await FoyerOutboxClient.messages(
            host: "127.0.0.1",
            port: identityPort,
            secret: testClusterSecret,
            recipient: recipient,
            limit: limit,
            logger: TestLogging.logger("foyer.test.outbox-client")
        )
    }

    /// A file holding the test cluster secret, as `foyer cleanup --cluster-secret-file` reads it.
    func clusterSecretFile() throws -> String {
        let path = directory.appendingPathComponent("cluster-secret").path
        try (testClusterSecret.text + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}

/// Knobs of the stack a test may turn.
struct StackOptions: Sendable {
    /// identity's access-token lifetime (default 15 minutes, as deployed).
    var accessTokenLifetime: Duration = .seconds(15 * 60)
    /// How long a sign-in counts as recent for the step-up of a deletion or a password change (default 5 minutes).
    var recentSignInWindow: Duration = .seconds(300)
    /// The gateway's tolerance for a token's `exp`; identity's stays at 60 s.
    var gatewayClockSkew: Duration = .seconds(60)
    /// Whether the gateway lets guest sign-ins name their source address (`--load-test-sources`); off, as deployed.
    var loadTestSources = false
    /// The gateway's per-source limits. Every client of a test comes from 127.0.0.1, so by default they are far
    /// above what a test does; the tests of the limits set their own.
    var sourceLimits: SourceLimits = {
        var limits = SourceLimits()
        limits.refresh = RateLimit(perMinute: 100_000, burst: 100_000)
        limits.signIn = RateLimit(perMinute: 100_000, burst: 100_000)
        limits.emailLinkCompletion = RateLimit(perMinute: 100_000, burst: 100_000)
        return limits
    }()
    /// The certificate and key of the gateway's binary listener; `nil`: plaintext.
    var gatewayTLS: TLSSettings?
    /// guest-quota's plans; `nil`: the built-in ones.
    var plans: PlanCatalog?
    /// The gateway's sign-up check (`--sign-up-check`); none, as by default.
    var signUpCheck: SignUpCheckSettings = .none
}

/// Runs `body` with the whole stack started, and stops and deletes it afterwards.
func withStack<T: Sendable>(options: StackOptions = StackOptions(), _ body: (Stack) async throws -> T) async throws -> T
{
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("foyer-client-test-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let clock = TestClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
    let closer = Closer()
    do {
        let result = try await startStack(directory: directory, clock: clock, options: options, closer: closer, body)
        try await closer.closeAll()
        return result
    } catch {
        try? await closer.closeAll()
        throw error
    }
}

/// Starts the services one after the other (cleanup and the gateway need the others' ports), runs `body`, then
/// stops the servers (cancelling the task group) before the caller closes the databases.
private func startStack<T: Sendable>(
    directory: URL,
    clock: TestClock,
    options: StackOptions,
    closer: Closer,
    _ body: (Stack) async throws -> T
) async throws -> T {
    let path = directory.path
    var identityConfiguration = IdentityConfiguration(database: try database("identity", in: path))
    identityConfiguration.password.argon2 = Argon2Parameters(memoryKiB: 1024, iterations: 1, parallelism: 1)
    identityConfiguration.password.scrypt = ScryptParameters(logN: 10, r: 8, p: 1, maxMemoryBytes: 16 << 20)
    identityConfiguration.accessTokenLifetime = options.accessTokenLifetime
    identityConfiguration.recentSignInWindow = options.recentSignInWindow
    identityConfiguration.now = clock.now
    // Local mode, as `make run`: email links stay in the outbox, where the tests read them (``Stack/outbox``).
    identityConfiguration.localMode = true
    identityConfiguration.mailer = .outbox
    let identity = try await IdentityService.make(
        configuration: identityConfiguration,
        server: testServerConfiguration(service: "identity"),
        logger: TestLogging.logger("foyer.test.identity")
    )
    closer.add { try await identity.close() }

    let guestQuota = try await startStoreService(
        "guest-quota",
        in: path,
        clock: clock,
        closer: closer,
        configure: { configuration in options.plans.map { configuration.plans = $0 } },
        make: GuestQuotaService.make(configuration:server:logger:)
    )
    let userData = try await startStoreService(
        "user-data",
        in: path,
        clock: clock,
        closer: closer,
        make: UserDataService.make(configuration:server:logger:)
    )

    return try await withThrowingTaskGroup(of: Void.self) { group in
        defer { group.cancelAll() }
        group.addTask { try await identity.server.run() }
        group.addTask { try await guestQuota.server.run() }
        group.addTask { try await userData.server.run() }
        let identityPort = try await identity.server.boundAddress().port!
        let quotaPort = try await guestQuota.server.boundAddress().port!
        let userDataPort = try await userData.server.boundAddress().port!

        var cleanupConfiguration = CleanupConfiguration(
            database: try database("cleanup", in: path),
            identity: internalClient("identity", port: identityPort, peer: "cleanup"),
            guestQuota: internalClient("guest-quota", port: quotaPort, peer: "cleanup"),
            userData: internalClient("user-data", port: userDataPort, peer: "cleanup")
        )
        cleanupConfiguration.now = clock.now
        let cleanup = try await CleanupService.make(
            configuration: cleanupConfiguration,
            server: testServerConfiguration(service: "cleanup"),
            logger: TestLogging.logger("foyer.test.cleanup")
        )
        closer.add { try await cleanup.close() }
        group.addTask { try await cleanup.server.run() }
        let cleanupPort = try await cleanup.server.boundAddress().port!

        var gatewayConfiguration = GatewayConfiguration(
            identity: internalClient("identity", port: identityPort, peer: "gateway"),
            guestQuota: internalClient("guest-quota", port: quotaPort, peer: "gateway"),
            userData: internalClient("user-data", port: userDataPort, peer: "gateway"),
            cleanup: internalClient("cleanup", port: cleanupPort, peer: "gateway")
        )
        gatewayConfiguration.now = clock.now
        gatewayConfiguration.accessTokenClockSkew = options.gatewayClockSkew
        gatewayConfiguration.trustClientSourceForLoadTests = options.loadTestSources
        gatewayConfiguration.sourceLimits = options.sourceLimits
        gatewayConfiguration.signUpCheck = options.signUpCheck
        var gatewayServer = RPCServerConfiguration(serviceName: "gateway", clusterSecret: nil)
        gatewayServer.tls = try options.gatewayTLS?.makeServerContext()
        let gateway = GatewayService.make(
            configuration: gatewayConfiguration,
            server: gatewayServer,
            logger: TestLogging.logger("foyer.test.gateway")
        )
        closer.add { for client in gateway.clients { await client.shutdown() } }
        group.addTask { try await gateway.server.run() }
        let gatewayPort = try await gateway.server.boundAddress().port!

        return try await body(
            Stack(
                clock: clock,
                gatewayPort: gatewayPort,
                cleanupPort: cleanupPort,
                identityPort: identityPort,
                directory: directory,
                gateway: gateway,
                identityServer: identity.server
            )
        )
    }
}

/// Makes a store service (guest-quota, user-data) with its defaults over its own SQLite file on the stack's clock,
/// and has `closer` close it.
private func startStoreService<Configuration: StoreServiceConfiguration>(
    _ name: String,
    in directory: String,
    clock: TestClock,
    closer: Closer,
    configure: (inout Configuration) -> Void = { _ in },
    make: (Configuration, RPCServerConfiguration, Logger) async throws -> StoreService<Configuration>
) async throws -> StoreService<Configuration> {
    var configuration = Configuration(database: try database(name, in: directory))
    configuration.now = clock.now
    configure(&configuration)
    let service = try await make(
        configuration,
        testServerConfiguration(service: name),
        TestLogging.logger("foyer.test.\(name)")
    )
    closer.add { try await service.close() }
    return service
}

private func database(_ name: String, in directory: String) throws -> DatabaseConfiguration {
    var configuration = try DatabaseConfiguration.parse(
        "sqlite:\(name).sqlite",
        dataDirectory: directory,
        defaultFileName: "\(name).sqlite"
    )
    configuration.limits = testDatabaseLimits()
    return configuration
}

/// A client configuration of an internal service (cluster-secret authenticated), as the executables make them.
private func internalClient(_ service: String, port: Int, peer: String) -> RPCClientConfiguration {
    RPCClientConfiguration(
        host: "127.0.0.1",
        port: port,
        serviceName: service,
        peerName: peer,
        clusterSecret: testClusterSecret
    )
}

/// What to close when the stack stops, newest first (the gateway's clients, then cleanup, then the databases).
private final class Closer: Sendable {
    private let steps = Mutex<[@Sendable () async throws -> Void]>([])

    func add(_ step: @escaping @Sendable () async throws -> Void) {
        steps.withLock { $0.append(step) }
    }

    func closeAll() async throws {
        let all = steps.withLock { steps in
            defer { steps.removeAll() }
            return steps
        }
        var failure: (any Error)?
        for step in all.reversed() {
            do { try await step() } catch { failure = failure ?? error }
        }
        if let failure { throw failure }
    }
}
