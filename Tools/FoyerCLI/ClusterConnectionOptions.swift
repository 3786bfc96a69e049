import ArgumentParser
import FoyerClient
import FoyerRPC
import Logging

/// What the operator commands that talk to an internal service share (`foyer outbox`, `foyer cleanup`,
/// `foyer admin`): the cluster secret the connection proves, TLS to the service, and the client's log level. Each
/// command keeps its own address option (the service's variable and default port) and time limit.
struct ClusterConnectionOptions: ParsableArguments {
    @Option(
        name: [.customLong("cluster-secret-file"), .customLong("secret-file")],
        help: ArgumentHelp(
            "The cluster secret file. (env: FOYER_CLUSTER_SECRET_FILE; default: .data/cluster-secret; FOYER_CLUSTER_SECRET, the secret itself, wins over both)",
            valueName: "path"
        )
    )
    var clusterSecretFile: String?

    @OptionGroup var tls: ClusterTLSOptions

    @Option(
        help: ArgumentHelp(
            "Log level of the client's logs on stderr. (env: FOYER_CLI_LOG_LEVEL; default: critical)",
            valueName: "level"
        )
    )
    var logLevel: String?

    /// Where and how to connect: the service's address, the secret, TLS and a logger.
    struct Connection {
        let host: String
        let port: Int
        let secret: ClusterSecret
        let tls: RPCClientTLS?
        let logger: Logger
    }

    /// The connection to the service at `address` (else the variable `addressVariable`, else loopback on
    /// `defaultPort`).
    func connection(
        address: String?,
        addressVariable: String,
        defaultPort: Int,
        logLabel: String
    ) throws(FoyerError) -> Connection {
        let address = address ?? GlobalOptions.environment(addressVariable) ?? "127.0.0.1:\(defaultPort)"
        let (host, port) = try FoyerClientConfiguration.parseAddress(address, defaultPort: defaultPort)
        let path =
            clusterSecretFile ?? GlobalOptions.environment("FOYER_CLUSTER_SECRET_FILE") ?? ".data/cluster-secret"
        return Connection(
            host: host,
            port: port,
            secret: try FoyerCleanupClient.loadSecret(path: path),
            tls: try tls.resolved(),
            logger: GlobalOptions.logger(logLabel, level: logLevel)
        )
    }
}

/// An operator's client of an internal service, closed when its command is done.
protocol OperatorClient: Sendable {
    func shutdown() async
}

extension FoyerCleanupClient: OperatorClient {}
extension FoyerOutboxClient: OperatorClient {}
extension FoyerIdentityAdminClient: OperatorClient {}

/// Runs `body` with `client`, then shuts the client down whether `body` threw or not.
func using<Client: OperatorClient, Value>(
    _ client: Client,
    _ body: (Client) async throws(FoyerError) -> Value
) async throws(FoyerError) -> Value {
    let result: Result<Value, FoyerError>
    do throws(FoyerError) {
        result = .success(try await body(client))
    } catch {
        result = .failure(error)
    }
    await client.shutdown()
    return try result.get()
}
