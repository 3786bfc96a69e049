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
            Output: {"messages": [{"id", "to", "subject", "body", "createdAt", "token", "code"}]}; "token" is the \
            email link's token, ready for `foyer email-link complete --token`, and "code" the email's six-digit \
            code, ready for `foyer email-link code --code` (null when the email has none).
            """
    )

    @Option(
        help: ArgumentHelp(
            "identity's address, HOST:PORT. (env: FOYER_IDENTITY_ADDRESS; default: 127.0.0.1:7401)",
            valueName: "host:port"
        )
    )
    var identity: String?

    @OptionGroup var cluster: ClusterConnectionOptions

    @Option(help: ArgumentHelp("Only messages to this address.", valueName: "email"))
    var to: String?

    @Option(help: "Most messages to show (1-1000).")
    var limit: Int = 20

    @Option(help: ArgumentHelp("Seconds the call may take.", valueName: "seconds"))
    var timeout: Int = 15

    func execute() async throws(FoyerError) -> JSONValue {
        let messages = try await cluster.run(
            FoyerOutboxClient.self,
            address: identity,
            addressVariable: "FOYER_IDENTITY_ADDRESS",
            defaultPort: 7401,
            timeoutSeconds: timeout,
            logLabel: "foyer.cli.outbox"
        ) { (client) async throws(FoyerError) in
            try await client.messages(recipient: to, limit: limit)
        }
        return .object([("messages", .array(messages.map(Self.render)))])
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
            ("code", EmailCode.code(inMessage: message.body).map { .string($0) } ?? .null),
        ])
    }
}
