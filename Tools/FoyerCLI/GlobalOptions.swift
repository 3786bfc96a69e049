import ArgumentParser
import Foundation
import FoyerClient
import Logging

/// The options every command that talks to the gateway takes.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The gateway: HOST:PORT (binary protocol), or https://HOST[:PORT] (HTTP edge; http:// on loopback).",
            discussion: "Env: FOYER_GATEWAY. Default: the session file's gateway, else 127.0.0.1:7400.",
            valueName: "address"
        )
    )
    var gateway: String?

    @Flag(
        name: .long,
        help: ArgumentHelp(
            "Speak TLS to the gateway, verifying its certificate against the system's CAs or --ca-file.",
            discussion: "Env: FOYER_TLS=1. Implied by --ca-file and by an https:// gateway."
        )
    )
    var tls = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "A PEM file of the certificate authorities to trust for the gateway's certificate; implies --tls.",
            discussion: """
                Env: FOYER_CA_FILE. Default: the system's trust store. With an https:// gateway on Linux, where \
                URLSession takes no private CA, add the CA to the system's trust store instead.
                """,
            valueName: "file"
        )
    )
    var caFile: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The session file: read before the command, written (mode 0600, atomically) when the session changes.",
            discussion: "Env: FOYER_SESSION. Without one the session lives only for this command.",
            valueName: "file"
        )
    )
    var session: String?

    @Option(name: .long, help: ArgumentHelp("Seconds a call may take, retries included.", valueName: "seconds"))
    var timeout: Int = 15

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Log level of the client's own logs on stderr: trace, debug, info, notice, warning, error, critical.",
            discussion: "Env: FOYER_CLI_LOG_LEVEL. Default: critical (stderr carries only the error object).",
            valueName: "level"
        )
    )
    var logLevel: String?

    static func environment(_ name: String) -> String? {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return nil }
        return value
    }

    var sessionPath: String? { session ?? Self.environment("FOYER_SESSION") }

    func logger(_ label: String = "foyer.cli") -> Logger {
        Self.logger(label, level: logLevel)
    }

    /// A logger to stderr at `level`, else FOYER_CLI_LOG_LEVEL, else `critical` (so stderr carries only the
    /// error object).
    static func logger(_ label: String, level: String?) -> Logger {
        var logger = Logger(label: label) { StreamLogHandler.standardError(label: $0) }
        let level = level ?? environment("FOYER_CLI_LOG_LEVEL")
        logger.logLevel = level.flatMap(Logger.Level.init(rawValue:)) ?? .critical
        return logger
    }

    /// The gateway to call: the flag, else FOYER_GATEWAY, else the session file's, else 127.0.0.1:7400 (an
    /// `https://` or `http://` URL: the HTTP edge); through TLS with `--tls`, `--ca-file`, FOYER_TLS=1,
    /// FOYER_CA_FILE or an `https://` URL.
    func clientConfiguration(stored: StoredSession?) throws(FoyerError) -> FoyerClientConfiguration {
        let address = gateway ?? Self.environment("FOYER_GATEWAY") ?? stored?.gateway ?? "127.0.0.1:7400"
        var configuration = try FoyerClientConfiguration(address: address)
        configuration.peerName = "foyer-cli"
        configuration.callTimeout = .seconds(max(1, timeout))
        let caFile = caFile ?? Self.environment("FOYER_CA_FILE")
        if tls || Self.environment("FOYER_TLS") == "1" || caFile != nil {
            if configuration.httpBaseURL?.scheme?.lowercased() == "http" {
                throw .invalidInput("--tls and --ca-file need an https:// gateway, not \(address)")
            }
            configuration.tls = FoyerClientConfiguration.TLS(caFile: caFile)
        }
        return configuration
    }
}
