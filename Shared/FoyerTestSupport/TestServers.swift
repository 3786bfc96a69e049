public import FoyerRPC
import FoyerWire
public import Logging
import NIOCore

/// A cluster secret for tests (random per process).
public let testClusterSecret = ClusterSecret.generate()

/// Runs an `RPCServer` on 127.0.0.1 with a free port for the duration of `body`, then stops it.
///
/// The server is ready when `body` runs (its bound address is known); no sleeping is needed.
public func withRPCServer<T: Sendable>(
    _ configuration: RPCServerConfiguration,
    router: RPCRouter = RPCRouter(),
    logger: Logger = TestLogging.logger("foyer.test.server"),
    _ body: @Sendable (_ server: RPCServer, _ port: Int) async throws -> T
) async throws -> T {
    var configuration = configuration
    configuration.host = "127.0.0.1"
    let server = RPCServer(configuration: configuration, router: router, logger: logger)
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await server.run() }
        let address = try await server.boundAddress()
        do {
            let result = try await body(server, address.port!)
            group.cancelAll()
            return result
        } catch {
            group.cancelAll()
            throw error
        }
    }
}

/// A server configuration for tests: cluster-secret authentication with `testClusterSecret`, port 0.
public func testServerConfiguration(
    service: String = "test",
    secret: ClusterSecret? = testClusterSecret
) -> RPCServerConfiguration {
    RPCServerConfiguration(serviceName: service, clusterSecret: secret)
}

/// A client of a test server, to be shut down by the caller (`await client.shutdown()`).
public func testClient(
    port: Int,
    service: String = "test",
    secret: ClusterSecret? = testClusterSecret,
    adjust: (inout RPCClientConfiguration) -> Void = { _ in }
) -> RPCClient {
    var configuration = RPCClientConfiguration(
        host: "127.0.0.1",
        port: port,
        serviceName: service,
        peerName: "test-client",
        clusterSecret: secret
    )
    adjust(&configuration)
    return RPCClient(configuration: configuration, logger: TestLogging.logger("foyer.test.client"))
}

/// Runs `body` with a client of a test server, shutting the client down afterwards.
public func withTestClient<T: Sendable>(
    port: Int,
    service: String = "test",
    secret: ClusterSecret? = testClusterSecret,
    adjust: (inout RPCClientConfiguration) -> Void = { _ in },
    _ body: (RPCClient) async throws -> T
) async throws -> T {
    let client = testClient(port: port, service: service, secret: secret, adjust: adjust)
    do {
        let result = try await body(client)
        await client.shutdown()
        return result
    } catch {
        await client.shutdown()
        throw error
    }
}

/// Runs a service's `server` in-process, hands `body` a client of it, then stops the server and runs `close` (the
/// service's, which closes its database), also when `body` throws.
///
/// - Parameter maxAttempts: the client's attempts per call (1 to see a failure a retry would hide).
nonisolated(nonsending) public func withServiceClient<T: Sendable>(
    _ server: RPCServer,
    service: String,
    maxAttempts: Int,
    close: () async throws -> Void,
    _ body: (RPCClient) async throws -> T
) async throws -> T {
    let result: T
    do {
        result = try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            defer { group.cancelAll() }
            let port = try await server.boundAddress().port!
            return try await withTestClient(
                port: port,
                service: service,
                adjust: {
                    $0.maxAttempts = maxAttempts
                    // Generous: the suites run in parallel on small shared machines.
                    $0.defaultCallTimeout = .seconds(60)
                },
                body
            )
        }
    } catch {
        try? await close()
        throw error
    }
    try await close()
    return result
}
