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

        @OptionGroup var cluster: ClusterConnectionOptions

        @Option(help: ArgumentHelp("Seconds the call may take.", valueName: "seconds"))
        var timeout: Int = 30

        func withClient(
            _ body: (FoyerIdentityAdminClient) async throws(FoyerError) -> JSONValue
        ) async throws(FoyerError) -> JSONValue {
            try await cluster.run(
                FoyerIdentityAdminClient.self,
                address: identity,
                addressVariable: "FOYER_IDENTITY_ADDRESS",
                defaultPort: 7401,
                timeoutSeconds: timeout,
                logLabel: "foyer.cli.admin",
                body
            )
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
