import Foundation
import FoyerAPI
import FoyerCleanup
import FoyerCrypto
import FoyerGuestQuota
import FoyerIdentity
import FoyerRPC
import FoyerStorage
import FoyerTestSupport
import FoyerUserData
import FoyerWire
import NIOCore
import SQLKit
import Synchronization
import Testing

/// The real identity, guest-quota and user-data services, in-process on free ports over fresh SQLite databases,
/// sharing one test clock; plus a fresh database for cleanup on the engine under test. Cleanup replicas are started
/// on it with ``withCleanup(replica:configure:_:)``.
struct CleanupCluster: Sendable {
    let clock: TestClock
    let identity: RPCClient
    let guestQuota: RPCClient
    let userData: RPCClient
    let identityDatabase: FoyerDatabase
    let guestQuotaDatabase: FoyerDatabase
    let userDataDatabase: FoyerDatabase
    /// cleanup's database (on the engine under test), for white-box checks.
    let cleanupDatabase: FoyerDatabase
    let identityPort: Int
    let guestQuotaPort: Int
    let userDataProcess: UserDataProcess

    /// user-data, which a test can stop and start again on the same port and data (an upstream going down).
    final class UserDataProcess: Sendable {
        let configuration: UserDataConfiguration
        let port: Int
        private let current = Mutex<UserDataService?>(nil)

        init(configuration: UserDataConfiguration, port: Int) {
            self.configuration = configuration
            self.port = port
        }

        func set(_ service: UserDataService?) { current.withLock { $0 = service } }

        /// Stops the server: connections drain and close, later connects are refused.
        func stop() { current.withLock { $0 }?.server.shutDownGracefully() }

        /// Starts user-data again on the same port and data for the duration of `body` (after ``stop()``).
        func whileRestarted<T: Sendable>(_ body: () async throws -> T) async throws -> T {
            var server = testServerConfiguration(service: "user-data")
            server.port = port
            let service = try await UserDataService.make(
                configuration: configuration,
                server: server,
                logger: TestLogging.logger("foyer.test.user-data")
            )
            set(service)
            do {
                let result = try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await service.server.run() }
                    defer { group.cancelAll() }
                    _ = try await service.server.boundAddress()
                    return try await body()
                }
                try await service.close()
                return result
            } catch {
                try? await service.close()
                throw error
            }
        }
    }
}

// MARK: - Starting the cluster

/// Runs `body` with a cluster whose cleanup database is on `engine`.
nonisolated(nonsending) func withCluster<T: Sendable>(
    _ engine: TestEngine,
    _ body: (CleanupCluster) async throws -> T
) async throws -> T {
    let clock = TestClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
    return try await withTestDatabase(.sqlite) { identityDatabase in
        try await withTestDatabase(.sqlite) { quotaDatabase in
            try await withTestDatabase(.sqlite) { userDataDatabase in
                try await withTestDatabase(engine) { cleanupDatabase in
                    try await startCluster(
                        clock: clock,
                        identityDatabase: identityDatabase,
                        quotaDatabase: quotaDatabase,
                        userDataDatabase: userDataDatabase,
                        cleanupDatabase: cleanupDatabase,
                        body
                    )
                }
            }
        }
    }
}

nonisolated(nonsending) private func startCluster<T: Sendable>(
    clock: TestClock,
    identityDatabase: FoyerDatabase,
    quotaDatabase: FoyerDatabase,
    userDataDatabase: FoyerDatabase,
    cleanupDatabase: FoyerDatabase,
    _ body: (CleanupCluster) async throws -> T
) async throws -> T {
    var identityConfiguration = IdentityConfiguration(database: identityDatabase.configuration)
    identityConfiguration.password.scrypt = ScryptParameters(logN: 10, r: 8, p: 1, maxMemoryBytes: 16 << 20)
    identityConfiguration.now = clock.now
    let identityService = try await IdentityService.make(
        configuration: identityConfiguration,
        database: identityDatabase,
        server: testServerConfiguration(service: "identity"),
        logger: TestLogging.logger("foyer.test.identity")
    )
    var quotaConfiguration = GuestQuotaConfiguration(database: quotaDatabase.configuration)
    quotaConfiguration.now = clock.now
    let quotaService = try await GuestQuotaService.make(
        configuration: quotaConfiguration,
        server: testServerConfiguration(service: "guest-quota"),
        logger: TestLogging.logger("foyer.test.guest-quota")
    )
    var userDataConfiguration = UserDataConfiguration(database: userDataDatabase.configuration)
    userDataConfiguration.now = clock.now
    let userDataService = try await UserDataService.make(
        configuration: userDataConfiguration,
        server: testServerConfiguration(service: "user-data"),
        logger: TestLogging.logger("foyer.test.user-data")
    )
    do {
        let result = try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await identityService.server.run() }
            group.addTask { try await quotaService.server.run() }
            group.addTask { try await userDataService.server.run() }
            defer { group.cancelAll() }
            let identityPort = try await identityService.server.boundAddress().port!
            let quotaPort = try await quotaService.server.boundAddress().port!
            let userDataPort = try await userDataService.server.boundAddress().port!
            let userData = CleanupCluster.UserDataProcess(configuration: userDataConfiguration, port: userDataPort)
            userData.set(userDataService)
            let identity = testClient(port: identityPort, service: "identity", adjust: quickClient)
            let guestQuota = testClient(port: quotaPort, service: "guest-quota", adjust: quickClient)
            let userDataClient = testClient(port: userDataPort, service: "user-data", adjust: quickClient)
            let cluster = CleanupCluster(
                clock: clock,
                identity: identity,
                guestQuota: guestQuota,
                userData: userDataClient,
                identityDatabase: identityDatabase,
                guestQuotaDatabase: quotaDatabase,
                userDataDatabase: userDataDatabase,
                cleanupDatabase: cleanupDatabase,
                identityPort: identityPort,
                guestQuotaPort: quotaPort,
                userDataProcess: userData
            )
            do {
                let result = try await body(cluster)
                for client in [identity, guestQuota, userDataClient] { await client.shutdown() }
                return result
            } catch {
                for client in [identity, guestQuota, userDataClient] { await client.shutdown() }
                throw error
            }
        }
        try await closeAll(identityService, quotaService, userDataService)
        return result
    } catch {
        try? await closeAll(identityService, quotaService, userDataService)
        throw error
    }
}

/// Clients for tests: one attempt, and a quick reconnect after an upstream came back.
func quickClient(_ configuration: inout RPCClientConfiguration) {
    configuration.maxAttempts = 1
    configuration.reconnectBackoffMax = .milliseconds(20)
}

private func closeAll(_ identity: IdentityService, _ quota: GuestQuotaService, _ userData: UserDataService) async throws
{
    try await identity.close()
    try await quota.close()
    try await userData.close()
}
