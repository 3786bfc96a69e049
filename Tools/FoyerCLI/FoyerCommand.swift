import ArgumentParser
import FoyerClient

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `foyer`: the command line of a Foyer gateway.
struct Foyer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "foyer",
        abstract: "The Foyer command line: guests, accounts, documents and operations, through the gateway.",
        discussion: """
            Every command prints one JSON object on stdout and exits 0. On failure it prints one JSON object on \
            stderr, {"error": "<status-name>", "status": <number>, "message": "...", ...details}, and exits 1 \
            (64 for a usage error). Details: quota-exceeded adds counter, limit, used, remaining, requested; rate \
            limits add retryAfterMs; version-mismatch adds currentVersion. "status" is 0 for errors found before \
            calling the gateway. A credential conflict is not an error: link, signup and email-link print \
            {"outcome": "conflict", "otherUid", "ticket", "ticketExpiresAt"} and exit 0; `foyer resolve` decides it.

            The session (uid and tokens) is kept in the file given with --session (mode 0600, rewritten \
            atomically whenever the session changes, deleted when it ends).

            Environment:
              FOYER_GATEWAY              gateway HOST:PORT, or https://HOST:PORT
                                         (default 127.0.0.1:7400)
              FOYER_SESSION              session file, when --session is not given
              FOYER_CLI_LOG_LEVEL        client log level on stderr (default critical)
              FOYER_CLEANUP_ADDRESS      cleanup HOST:PORT (default 127.0.0.1:7404)
              FOYER_IDENTITY_ADDRESS     identity HOST:PORT for `foyer outbox` and `foyer admin`
                                         (default 127.0.0.1:7401)
              FOYER_CLUSTER_SECRET_FILE  cluster secret file for `foyer cleanup`, `foyer outbox` and
                                         `foyer admin` (default .data/cluster-secret)
              FOYER_CLUSTER_SECRET       the cluster secret itself (base64url)
            """,
        subcommands: [
            GuestCommand.self, SignUpCommand.self, SignInCommand.self, RefreshCommand.self, TokenCommand.self,
            MeCommand.self, QuotaCommand.self, FeatureCommand.self, LinkCommand.self, ResolveCommand.self,
            EmailLinkCommand.self, DeviceKeyCommand.self,
            SignOutCommand.self, DeleteAccountCommand.self, ResetPasswordCommand.self, ChangePasswordCommand.self,
            SignOutEverywhereCommand.self, UnlinkCommand.self, ChangeEmailCommand.self,
            PutCommand.self, GetCommand.self, ListCommand.self, DeleteCommand.self, ExportCommand.self,
            OutboxCommand.self, JWKSCommand.self, CleanupCommand.self, AdminCommand.self, LoadCommand.self,
        ]
    )
}

/// A command whose outcome is one JSON object.
protocol JSONCommand: AsyncParsableCommand {
    func execute() async throws(FoyerError) -> JSONValue
}

extension JSONCommand {
    func run() async throws {
        let result: Result<JSONValue, FoyerError>
        do throws(FoyerError) {
            result = .success(try await execute())
        } catch {
            result = .failure(error)
        }
        switch result {
        case .success(let value):
            Output.success(value)
        case .failure(let error):
            Output.failure(Output.errorObject(error))
            throw ExitCode.failure
        }
    }
}

@main
enum FoyerMain {
    static func main() async {
        let command: any ParsableCommand
        do {
            command = try Foyer.parseAsRoot()
        } catch {
            let code = Foyer.exitCode(for: error)
            guard code != .success else { Foyer.exit(withError: error) }
            Output.failure(
                .object([
                    ("error", .string("usage")),
                    ("status", .uint(0)),
                    ("message", .string(Foyer.message(for: error))),
                ])
            )
            exit(code.rawValue)
        }
        do {
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                var command = command
                try command.run()
            }
        } catch {
            Foyer.exit(withError: error)
        }
        exit(0)
    }
}
