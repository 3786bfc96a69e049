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

    /// Runs `body` with a client of the service at `address` (else the variable `addressVariable`, else loopback on
    /// `defaultPort`), then shuts the client down whether `body` threw or not.
    func run<Client: OperatorClient, Value>(
        _ client: Client.Type,
        address: String?,
        addressVariable: String,
        defaultPort: Int,
        timeoutSeconds: Int,
        logLabel: String,
        _ body: (Client) async throws(FoyerError) -> Value
    ) async throws(FoyerError) -> Value {
        let address = address ?? GlobalOptions.environment(addressVariable) ?? "127.0.0.1:\(defaultPort)"
        let (host, port) = try FoyerClientConfiguration.parseAddress(address, defaultPort: defaultPort)
        let path =
            clusterSecretFile ?? GlobalOptions.environment("FOYER_CLUSTER_SECRET_FILE") ?? ".data/cluster-secret"
        let client = Client(
            host: host,
            port: port,
            secret: try FoyerCleanupClient.loadSecret(path: path),
            callTimeout: .seconds(max(1, timeoutSeconds)),
            tls: try tls.resolved(),
            logger: GlobalOptions.logger(logLabel, level: logLevel)
        )
        let result: Result<Value, FoyerError>
        do throws(FoyerError) {
            result = .success(try await body(client))
        } catch {
            result = .failure(error)
        }
        await client.shutdown()
        return try result.get()
    }
}

/// An operator's client of an internal service (each connects the same way; see ``ClusterConnectionOptions``).
protocol OperatorClient: Sendable {
    init(
        host: String,
        port: Int,
        secret: ClusterSecret,
        callTimeout: Duration,
        tls: RPCClientTLS?,
        logger: Logger
    )
    func shutdown() async
}

extension FoyerCleanupClient: OperatorClient {}
extension FoyerOutboxClient: OperatorClient {}
extension FoyerIdentityAdminClient: OperatorClient {}
