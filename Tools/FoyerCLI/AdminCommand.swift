import ArgumentParser
import FoyerClient

/// `foyer admin`: operators' commands that talk to the internal services with the cluster secret, never to the
/// gateway.
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Administer the stack (internal: needs the cluster secret).",
        subcommands: [RotateKeys.self]
    )

    /// How `foyer admin` reaches identity.
    struct IdentityOptions: ParsableArguments {
        @Option(
            help: ArgumentHelp(
                "identity's address, HOST:PORT. (env: FOYER_IDENTITY_ADDRESS; default: 127.0.0.1:7401)",
                valueName: "host:port"
            )
        )
        var identity: String?

        @Option(
            help: ArgumentHelp(
                "The cluster secret file. (env: FOYER_CLUSTER_SECRET_FILE; default: .data/cluster-secret; FOYER_CLUSTER_SECRET, the secret itself, wins over both)",
                valueName: "path"
            )
        )
        var clusterSecretFile: String?

        @OptionGroup var tls: ClusterTLSOptions

        @Option(help: ArgumentHelp("Seconds the call may take.", valueName: "seconds"))
        var timeout: Int = 30

        @Option(
            help: ArgumentHelp(
                "Log level of the client's logs on stderr. (env: FOYER_CLI_LOG_LEVEL; default: critical)",
                valueName: "level"
            )
        )
        var logLevel: String?

        func withClient(
            _ body: (FoyerIdentityAdminClient) async throws(FoyerError) -> JSONValue
        ) async throws(FoyerError) -> JSONValue {
            let address = identity ?? GlobalOptions.environment("FOYER_IDENTITY_ADDRESS") ?? "127.0.0.1:7401"
            let (host, port) = try FoyerClientConfiguration.parseAddress(address, defaultPort: 7401)
            let path =
                clusterSecretFile ?? GlobalOptions.environment("FOYER_CLUSTER_SECRET_FILE") ?? ".data/cluster-secret"
            let client = FoyerIdentityAdminClient(
                host: host,
                port: port,
                secret: try FoyerCleanupClient.loadSecret(path: path),
                callTimeout: .seconds(max(1, timeout)),
                tls: try tls.resolved(),
                logger: GlobalOptions.logger("foyer.cli.admin", level: logLevel)
            )
            let result: Result<JSONValue, FoyerError>
            do throws(FoyerError) {
                result = .success(try await body(client))
            } catch {
                result = .failure(error)
            }
            await client.shutdown()
            return try result.get()
        }
    }

    struct RotateKeys: JSONCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-keys",
            abstract: "Rotate the access-token signing key now.",
            discussion: """
                The new key is published (JWKS) at once and signs new access tokens 120 seconds later, when every \
                identity replica and gateway has had time to load it; the old key signs until then and stays \
                published until the tokens it signed have expired.
                Output: {"keyID"}: the new key's id (the tokens' "kid").
                """
        )

        @OptionGroup var options: IdentityOptions

        func execute() async throws(FoyerError) -> JSONValue {
            try await options.withClient { (client) async throws(FoyerError) in
                .object([("keyID", .string(try await client.rotateSigningKey()))])
            }
        }
    }
}
