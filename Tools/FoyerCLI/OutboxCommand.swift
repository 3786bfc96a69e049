import ArgumentParser
import Foundation
import FoyerAPI
import FoyerClient

/// `foyer outbox`: an operator's look at the email links identity keeps in local mode. It talks to identity's
/// internal listener with the cluster secret, never to the gateway: no client-facing method reads the outbox.
struct OutboxCommand: JSONCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbox",
        abstract:
            "Local mode: the email links identity kept instead of sending them, newest first (internal: needs the cluster secret).",
        discussion: """
            Identity keeps emails in its outbox only in local mode (`identity --local-mode --mailer outbox`, as \
            `make run` starts it). This command connects to identity itself, not the gateway.
            Output: {"messages": [{"id", "to", "subject", "body", "createdAt", "token"}]}; "token" is the email \
            link's token, ready for `foyer email-link complete --token`.
            """
    )

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

    @Option(help: ArgumentHelp("Only messages to this address.", valueName: "email"))
    var to: String?

    @Option(help: "Most messages to show (1-1000).")
    var limit: Int = 20

    @Option(help: ArgumentHelp("Seconds the call may take.", valueName: "seconds"))
    var timeout: Int = 15

    @Option(
        help: ArgumentHelp(
            "Log level of the client's logs on stderr. (env: FOYER_CLI_LOG_LEVEL; default: critical)",
            valueName: "level"
        )
    )
    var logLevel: String?

    func execute() async throws(FoyerError) -> JSONValue {
        let address = identity ?? GlobalOptions.environment("FOYER_IDENTITY_ADDRESS") ?? "127.0.0.1:7401"
        let (host, port) = try FoyerClientConfiguration.parseAddress(address, defaultPort: 7401)
        let path =
            clusterSecretFile ?? GlobalOptions.environment("FOYER_CLUSTER_SECRET_FILE") ?? ".data/cluster-secret"
        let client = FoyerOutboxClient(
            host: host,
            port: port,
            secret: try FoyerCleanupClient.loadSecret(path: path),
            callTimeout: .seconds(max(1, timeout)),
            tls: try tls.resolved(),
            logger: GlobalOptions.logger("foyer.cli.outbox", level: logLevel)
        )
        let result: Result<[OutboxMessage], FoyerError>
        do throws(FoyerError) {
            result = .success(try await client.messages(recipient: to, limit: limit))
        } catch {
            result = .failure(error)
        }
        await client.shutdown()
        return .object([("messages", .array(try result.get().map(Self.render)))])
    }

    private static func render(_ message: OutboxMessage) -> JSONValue {
        let token = EmailLinkVerifier.token(fromLink: message.body)
        return .object([
            ("id", .string(message.id)),
            ("to", .string(message.recipient)),
            ("subject", .string(message.subject)),
            ("body", .string(message.body)),
            ("createdAt", .time(milliseconds: message.createdAtMilliseconds)),
            ("token", token == message.body.trimmingCharacters(in: .whitespacesAndNewlines) ? .null : .string(token)),
        ])
    }
}
