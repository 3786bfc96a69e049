// The harness of the store services (guest-quota, user-data): the service in-process on port 0 over a fresh
// database, a client of it, its clock. Each test target declares its service (`StoreServiceUnderTest`) and its status
// names (`StatusExpectation`) once, and adds its calls in an extension of `StoreServiceHarness`.

public import FoyerRPC
public import FoyerServiceKit
public import FoyerStorage
public import FoyerWire
public import Logging
public import Testing

/// A running store service on a fresh database, a client of it, and its clock.
public struct StoreServiceHarness<Configuration: StoreServiceConfiguration>: Sendable {
    public let client: RPCClient
    public let clock: TestClock
    public let configuration: Configuration
    /// The service's database, for checks of what it stored.
    public let database: FoyerDatabase
}

/// A store service as its tests start it: its name and its `make`. A test target declares it once, under the name
/// its tests call, and calls it like a function:
///
/// ```swift
/// let withGuestQuota = StoreServiceUnderTest(service: "guest-quota") {
///     try await GuestQuotaService.make(configuration: $0, server: $1, logger: $2)
/// }
/// try await withGuestQuota(engine, configure: { $0.signupBurstPerSource = 3 }) { quota in ... }
/// ```
public struct StoreServiceUnderTest<Configuration: StoreServiceConfiguration>: Sendable {
    public typealias Make =
        @Sendable (Configuration, RPCServerConfiguration, Logger) async throws -> StoreService<Configuration>

    /// The service's name ("guest-quota"), for its server, client and logger.
    public let service: String
    /// The service's `make(configuration:server:logger:)`.
    public let make: Make

    public init(service: String, make: @escaping Make) {
        self.service = service
        self.make = make
    }

    /// Runs `body` against the service started in-process on port 0 over a fresh database on `engine`.
    ///
    /// - Parameters:
    ///   - configure: adjusts the configuration (the clock is already a `TestClock`).
    ///   - maxAttempts: the client's attempts per call (1 to see a failure a retry would hide).
    @discardableResult
    public func callAsFunction<T: Sendable>(
        _ engine: TestEngine,
        configure: (inout Configuration) -> Void = { _ in },
        maxAttempts: Int = 3,
        _ body: (StoreServiceHarness<Configuration>) async throws -> T
    ) async throws -> T {
        try await withTestDatabase(engine) { database in
            let clock = TestClock()
            var configuration = Configuration(database: database.configuration)
            configuration.database.limits.postgresPoolSize = 3
            // Tests need no durability across power loss; skipping the fsync per commit keeps the SQLite suites
            // fast.
            configuration.database.sqliteSynchronous = .normal
            configuration.now = clock.now
            configure(&configuration)
            let instance = try await make(
                configuration,
                testServerConfiguration(service: service),
                TestLogging.logger("foyer.test.\(service)")
            )
            return try await withServiceClient(
                instance.server,
                service: service,
                maxAttempts: maxAttempts,
                close: instance.close
            ) { client in
                try await body(
                    StoreServiceHarness(client: client, clock: clock, configuration: configuration, database: database)
                )
            }
        }
    }
}

/// Expects a call to fail with a status, naming statuses as one service does. A test target declares it once:
/// `let expectStatus = StatusExpectation(names: GuestQuotaStatus.name(of:))`, then
/// `await expectStatus(GuestQuotaStatus.unknownPlan) { try await ... }`.
public struct StatusExpectation: Sendable {
    /// The service's status names (`GuestQuotaStatus.name(of:)`), for the messages.
    public let names: @Sendable (RPCStatus) -> String?

    public init(names: @escaping @Sendable (RPCStatus) -> String?) {
        self.names = names
    }

    /// Expects `body` to fail with `status`, and returns the error for further checks.
    @discardableResult
    public func callAsFunction<T>(
        _ status: RPCStatus,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () async throws -> T
    ) async -> RPCError? {
        func name(_ status: RPCStatus) -> String { names(status) ?? "\(status)" }
        do {
            _ = try await body()
            Issue.record("expected \(name(status)), got an answer", sourceLocation: sourceLocation)
            return nil
        } catch let error as RPCError {
            #expect(
                error.status == status,
                "expected \(name(status)), got \(name(error.status)): \(error.message)",
                sourceLocation: sourceLocation
            )
            return error
        } catch {
            Issue.record("expected an RPCError, got \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }
}
