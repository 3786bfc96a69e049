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
    @OptionGroup(title: "Mail") var mail: MailOptions
    @OptionGroup(title: "Abuse limits") var limits: AbuseLimitOptions

    @Option(help: "The `iss` of access tokens. (env: FOYER_ISSUER; default: foyer)")
    var issuer: String?
    @Option(help: "The `aud` of access tokens. (env: FOYER_AUDIENCE; default: foyer-app)")
    var audience: String?
    @Option(help: "Access-token lifetime in seconds. (env: FOYER_ACCESS_TOKEN_SECONDS; default: 900)")
    var accessTokenSeconds: Int?
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
    @Option(
        help:
            "Sign in with Apple: a JWKS file instead of Apple's URL; tests only, needs --allow-test-identity-providers. (env: FOYER_APPLE_JWKS_FILE)"
    )
    var appleJWKSFile: String?
    @Option(help: "Google: accepted audiences (OAuth client ids), comma-separated. (env: FOYER_GOOGLE_AUDIENCES)")
    var googleAudiences: String?
    @Option(
        help:
            "Google: a JWKS file instead of Google's URL; tests only, needs --allow-test-identity-providers. (env: FOYER_GOOGLE_JWKS_FILE)"
    )
    var googleJWKSFile: String?
    @Option(
        help:
            "Sign in with Apple: refuse ID tokens without a nonce, true or false. (env: FOYER_APPLE_NONCE_REQUIRED; default: true)"
    )
    var appleNonceRequired: String?
    @Option(
        help:
            "Google: refuse ID tokens without a nonce, true or false. (env: FOYER_GOOGLE_NONCE_REQUIRED; default: false)"
    )
    var googleNonceRequired: String?
    @Flag(
        help: """
            TESTS ONLY: allow the provider JWKS files (--apple-jwks-file, --google-jwks-file), with which a stand-in \
            provider signs ID tokens for any account; without it they stop the start. Never in production. \
            (env: FOYER_ALLOW_TEST_IDENTITY_PROVIDERS=1)
            """
    )
    var allowTestIdentityProviders = false
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
        try mail.apply(to: &configuration)
        configuration.apple = try provider(
            .apple,
            audiences: appleAudiences,
            jwksFile: appleJWKSFile,
            nonceRequired: appleNonceRequired
        )
        configuration.google = try provider(
            .google,
            audiences: googleAudiences,
            jwksFile: googleJWKSFile,
            nonceRequired: googleNonceRequired
        )
        configuration.allowTestIdentityProviders =
            allowTestIdentityProviders || ServiceOptions.environment("FOYER_ALLOW_TEST_IDENTITY_PROVIDERS") == "1"
        if configuration.allowTestIdentityProviders {
            startup.logger.warning("test identity providers allowed: provider keys may come from local files")
        }
        try limits.apply(to: &configuration)
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

    /// A provider's settings from its flags, or the environment variables `FOYER_APPLE_…` / `FOYER_GOOGLE_…`;
    /// nil (not configured) without audiences.
    private func provider(
        _ kind: Provider,
        audiences flag: String?,
        jwksFile: String?,
        nonceRequired: String?
    ) throws -> ProviderSettings? {
        let prefix = kind == .apple ? "FOYER_APPLE" : "FOYER_GOOGLE"
        guard let list = flag ?? ServiceOptions.environment("\(prefix)_AUDIENCES") else { return nil }
        let audiences = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
            !$0.isEmpty
        }
        var settings =
            kind == .apple
            ? ProviderSettings.apple(audiences: audiences) : ProviderSettings.google(audiences: audiences)
        if let path = jwksFile ?? ServiceOptions.environment("\(prefix)_JWKS_FILE") { settings.keys = .file(path) }
        if let text = nonceRequired ?? ServiceOptions.environment("\(prefix)_NONCE_REQUIRED") {
            guard let required = Bool(text) else {
                throw ValidationError("\(prefix)_NONCE_REQUIRED (or its flag) must be true or false, not '\(text)'")
            }
            settings.nonceRequired = required
        }
        return settings
    }

    private func number(_ flag: Int?, _ variable: String) throws -> Int64? {
        if let flag { return Int64(flag) }
        guard let text = ServiceOptions.environment(variable) else { return nil }
        guard let value = Int64(text), value > 0 else { throw ValidationError("\(variable) must be a positive number") }
        return value
    }
}
