public import FoyerRPC
import FoyerWire
import NIOCore

/// A cluster secret for tests (random per process).
public let testClusterSecret = ClusterSecret.generate()

/// Runs an `RPCServer` on 127.0.0.1 with a free port for the duration of `body`, then stops it.
///
/// The server is ready when `body` runs (its bound address is known); no sleeping is needed.
public func withRPCServer<T: Sendable>(
    _ configuration: RPCServerConfiguration,
    router: RPCRouter = RPCRouter(),
    _ body: @Sendable (_ server: RPCServer, _ port: Int) async throws -> T
) async throws -> T {
    var configuration = configuration
    configuration.host = "127.0.0.1"
    let server = RPCServer(
        configuration: configuration,
        router: router,
        logger: TestLogging.logger("foyer.test.server")
    )
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
public func testServerConfiguration(service: String = "test", secret: ClusterSecret? = testClusterSecret) -> RPCServerConfiguration {
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
