import ArgumentParser
import Foundation
import FoyerIdentity
import FoyerRPC
import FoyerServiceKit

/// `identity`: who a user is — guests, tokens, credentials, linking, the account state machine.
@main
struct IdentityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identity",
        abstract: "Foyer's identity service: guests, sessions and tokens, credentials, linking, merges and deletions.",
        discussion:
            "Every option can also be set by the environment variable named in its help. The signing key is created in the database on first start; `--write-jwks FILE` writes the published keys for app backends."
    )

    @OptionGroup var common: ServiceOptions

    @Option(help: "The `iss` of access tokens. (env: FOYER_ISSUER; default: foyer)")
    var issuer: String?
    @Option(help: "The `aud` of access tokens. (env: FOYER_AUDIENCE; default: foyer-app)")
    var audience: String?
    @Option(help: "Access-token lifetime in seconds. (env: FOYER_ACCESS_TOKEN_SECONDS; default: 900)")
    var accessTokenSeconds: Int?
    @Option(help: "Mailer for email links: outbox, sendmail:PATH or webhook:URL. (env: FOYER_MAILER; default: outbox)")
    var mailer: String?
    @Option(
        help:
            "Email-link URL template with {token}. (env: FOYER_EMAIL_LINK_TEMPLATE; default: foyer://email-link#token={token})"
    )
    var emailLinkTemplate: String?
    @Option(
        help:
            "Sign in with Apple: accepted audiences (bundle or services ids), comma-separated. (env: FOYER_APPLE_AUDIENCES)"
    )
    var appleAudiences: String?
    @Option(help: "Sign in with Apple: a JWKS file instead of Apple's URL. (env: FOYER_APPLE_JWKS_FILE)")
    var appleJWKSFile: String?
    @Option(help: "Google: accepted audiences (OAuth client ids), comma-separated. (env: FOYER_GOOGLE_AUDIENCES)")
    var googleAudiences: String?
    @Option(help: "Google: a JWKS file instead of Google's URL. (env: FOYER_GOOGLE_JWKS_FILE)")
    var googleJWKSFile: String?
    @Option(help: "Write the published signing keys (JWKS) to this file after start. (env: FOYER_JWKS_FILE)")
    var writeJWKS: String?

    func run() async throws {
        let startup = try ServiceStartup(service: "identity", defaultPort: 7401, options: common)
        if common.checkHealth { throw ExitCode(await startup.checkHealth() ? 0 : 1) }
        try await startup.prepareDatabase()
        let service = try await IdentityService.make(
            configuration: try identityConfiguration(startup),
            server: startup.serverConfiguration(),
            logger: startup.logger
        )
        if let path = writeJWKS ?? ServiceOptions.environment("FOYER_JWKS_FILE") {
            try Data(try await service.jwksJSON()).write(to: URL(fileURLWithPath: path), options: .atomic)
            startup.logger.info("published keys written", metadata: ["jwks.file": "\(path)"])
        }
        do {
            try await ServiceRunner.run(services: [service.server] + service.backgroundServices, logger: startup.logger)
        } catch {
            try? await service.close()
            throw error
        }
        try await service.close()
    }

    private func identityConfiguration(_ startup: ServiceStartup) throws -> IdentityConfiguration {
        var configuration = IdentityConfiguration(database: startup.database)
        configuration.now = startup.now
        configuration.issuer = issuer ?? ServiceOptions.environment("FOYER_ISSUER") ?? configuration.issuer
        configuration.audience = audience ?? ServiceOptions.environment("FOYER_AUDIENCE") ?? configuration.audience
        if let seconds = try number(accessTokenSeconds, "FOYER_ACCESS_TOKEN_SECONDS") {
            configuration.accessTokenLifetime = .seconds(seconds)
        }
        if let template = emailLinkTemplate ?? ServiceOptions.environment("FOYER_EMAIL_LINK_TEMPLATE") {
            configuration.emailLink.linkTemplate = template
        }
        configuration.mailer = try Self.mailer(mailer ?? ServiceOptions.environment("FOYER_MAILER") ?? "outbox")
        configuration.apple = provider(
            .apple,
            appleAudiences,
            "FOYER_APPLE_AUDIENCES",
            appleJWKSFile,
            "FOYER_APPLE_JWKS_FILE"
        )
        configuration.google = provider(
            .google,
            googleAudiences,
            "FOYER_GOOGLE_AUDIENCES",
            googleJWKSFile,
            "FOYER_GOOGLE_JWKS_FILE"
        )
        if let logN = try testScryptLogN() { configuration.password.scrypt.logN = logN }
        return configuration
    }

    /// `FOYER_TEST_SCRYPT_LOG_N`, debug builds only: a cheaper scrypt N (2^value) for integration tests that hash
    /// many passwords, as the in-process tests configure. A release build refuses to start with it set, so a
    /// deployment can never run with weakened password hashing.
    private func testScryptLogN() throws -> UInt8? {
        guard let text = ServiceOptions.environment("FOYER_TEST_SCRYPT_LOG_N") else { return nil }
        #if DEBUG
        guard let logN = UInt8(text), logN >= 10, logN <= 17 else {
            throw ValidationError("FOYER_TEST_SCRYPT_LOG_N must be a number from 10 to 17")
        }
        return logN
        #else
        throw ValidationError("FOYER_TEST_SCRYPT_LOG_N is for tests of debug builds only; unset it")
        #endif
    }

    private enum Provider { case apple, google }

    private func provider(
        _ kind: Provider,
        _ flag: String?,
        _ variable: String,
        _ file: String?,
        _ fileVariable: String
    ) -> ProviderSettings? {
        guard let list = flag ?? ServiceOptions.environment(variable) else { return nil }
        let audiences = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
            !$0.isEmpty
        }
        var settings =
            kind == .apple
            ? ProviderSettings.apple(audiences: audiences) : ProviderSettings.google(audiences: audiences)
        if let path = file ?? ServiceOptions.environment(fileVariable) { settings.keys = .file(path) }
        return settings
    }

    private static func mailer(_ text: String) throws -> MailerChoice {
        if text == "outbox" { return .outbox }
        if text.hasPrefix("sendmail:") { return .sendmail(path: String(text.dropFirst("sendmail:".count))) }
        if text.hasPrefix("webhook:") { return .webhook(url: String(text.dropFirst("webhook:".count))) }
        throw ValidationError("mailer must be outbox, sendmail:PATH or webhook:URL, not '\(text)'")
    }

    private func number(_ flag: Int?, _ variable: String) throws -> Int64? {
        if let flag { return Int64(flag) }
        guard let text = ServiceOptions.environment(variable) else { return nil }
        guard let value = Int64(text), value > 0 else { throw ValidationError("\(variable) must be a positive number") }
        return value
    }
}
