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
            "Every option can also be set by the environment variable named in its help. The signing key is created in the database on first start, sealed with the key-encryption key of --signing-key-encryption-key-file if given, and rotated every --signing-key-rotation-days; `--write-jwks FILE` writes the published keys for app backends."
    )

    @OptionGroup var common: ServiceOptions
    @OptionGroup(title: "Mail") var mail: MailOptions
    @OptionGroup(title: "Abuse limits") var limits: AbuseLimitOptions
    @OptionGroup(title: "Signing keys") var signingKeys: SigningKeyOptions
    @OptionGroup(title: "Events and webhooks") var webhooks: WebhookOptions
    @OptionGroup(title: "Sign in with Apple token revocation") var appleRevocation: AppleRevocationOptions

    @Option(
        help: """
            The `iss` of access tokens and the gateway's discovery document: an https URL without query, fragment or \
            final slash (http only for a loopback host). (env: FOYER_ISSUER; default: http://127.0.0.1:7480)
            """
    )
    var issuer: String?
    @Option(help: "The `aud` of access tokens. (env: FOYER_AUDIENCE; default: foyer-app)")
    var audience: String?
    @Option(help: "Access-token lifetime in seconds. (env: FOYER_ACCESS_TOKEN_SECONDS; default: 900)")
    var accessTokenSeconds: Int?
    @Option(
        help: """
            The hash of new passwords: argon2id (m=19 MiB, t=2, p=1) or scrypt (N=2^17, r=8, p=1). Stored hashes of \
            the other are still accepted and replaced at the next sign-in. (env: FOYER_PASSWORD_HASH; default: argon2id)
            """
    )
    var passwordHash: String?
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
        if let path = try SettingsReader().value(writeJWKS, .text("--write-jwks", "FOYER_JWKS_FILE")) {
            try Data(try await service.jwksJSON()).write(to: URL(fileURLWithPath: path), options: .atomic)
            startup.logger.info("published keys written", metadata: ["jwks.file": "\(path)"])
        }
        try await ServiceRunner.run(
            services: startup.withTelemetry(
                startup.withCertificateReload([service.server] + service.backgroundServices)
            ),
            logger: startup.logger,
            thenClose: service.close
        )
    }

    private func identityConfiguration(_ startup: ServiceStartup) throws -> IdentityConfiguration {
        let settings = SettingsReader()
        var configuration = IdentityConfiguration(database: startup.database)
        configuration.now = startup.now
        configuration.issuer = try settings.value(issuer, .text("--issuer", "FOYER_ISSUER")) ?? configuration.issuer
        configuration.audience =
            try settings.value(audience, .text("--audience", "FOYER_AUDIENCE")) ?? configuration.audience
        let lifetime = Setting<Int>.positive("--access-token-seconds", "FOYER_ACCESS_TOKEN_SECONDS")
        if let seconds = try settings.value(accessTokenSeconds, lifetime) {
            configuration.accessTokenLifetime = .seconds(seconds)
        }
        configuration.emailLink.linkTemplate =
            try settings.value(emailLinkTemplate, .text("--email-link-template", "FOYER_EMAIL_LINK_TEMPLATE"))
            ?? configuration.emailLink.linkTemplate
        try mail.apply(to: &configuration)
        configuration.apple = try provider(
            .apple,
            settings,
            audiences: appleAudiences,
            jwksFile: appleJWKSFile,
            nonceRequired: appleNonceRequired
        )
        configuration.google = try provider(
            .google,
            settings,
            audiences: googleAudiences,
            jwksFile: googleJWKSFile,
            nonceRequired: googleNonceRequired
        )
        configuration.allowTestIdentityProviders =
            settings.isOn(allowTestIdentityProviders, "FOYER_ALLOW_TEST_IDENTITY_PROVIDERS")
        if configuration.allowTestIdentityProviders {
            startup.logger.warning("test identity providers allowed: provider keys may come from local files")
        }
        try limits.apply(to: &configuration)
        try signingKeys.apply(to: &configuration, logger: startup.logger)
        try webhooks.apply(to: &configuration)
        try appleRevocation.apply(to: &configuration)
        if let name = try settings.value(passwordHash, .text("--password-hash", "FOYER_PASSWORD_HASH")) {
            guard let algorithm = PasswordAlgorithm(rawValue: name) else {
                throw ValidationError("--password-hash: '\(name)' is not argon2id or scrypt")
            }
            configuration.password.algorithm = algorithm
        }
        if let logN = try testScryptLogN(settings) { configuration.password.scrypt.logN = logN }
        return configuration
    }

    /// `FOYER_TEST_SCRYPT_LOG_N`, debug builds only: a cheaper scrypt N (2^value) for integration tests that hash
    /// many passwords, as the in-process tests configure. A release build refuses to start with it set, so a
    /// deployment can never run with weakened password hashing.
    private func testScryptLogN(_ settings: SettingsReader) throws -> UInt8? {
        #if DEBUG
        let logN = Setting<Int>.int("", "FOYER_TEST_SCRYPT_LOG_N", in: 10...17)
        return try settings.value(nil, logN).map { UInt8($0) }
        #else
        guard settings.text("FOYER_TEST_SCRYPT_LOG_N") == nil else {
            throw ValidationError("FOYER_TEST_SCRYPT_LOG_N is for tests of debug builds only; unset it")
        }
        return nil
        #endif
    }

    private enum Provider: String { case apple, google }

    /// A provider's settings from its flags, or the environment variables `FOYER_APPLE_…` / `FOYER_GOOGLE_…`;
    /// nil (not configured) without audiences.
    private func provider(
        _ kind: Provider,
        _ settings: SettingsReader,
        audiences: String?,
        jwksFile: String?,
        nonceRequired: String?
    ) throws -> ProviderSettings? {
        let flag = "--\(kind.rawValue)"
        let prefix = "FOYER_\(kind.rawValue.uppercased())"
        let list = Setting<[String]>.list("\(flag)-audiences", "\(prefix)_AUDIENCES")
        guard let audiences = try settings.value(parsing: audiences, list) else { return nil }
        var provider =
            kind == .apple
            ? ProviderSettings.apple(audiences: audiences) : ProviderSettings.google(audiences: audiences)
        if let path = try settings.value(jwksFile, .text("\(flag)-jwks-file", "\(prefix)_JWKS_FILE")) {
            provider.keys = .file(path)
        }
        let nonce = Setting<Bool>.bool("\(flag)-nonce-required", "\(prefix)_NONCE_REQUIRED")
        provider.nonceRequired = try settings.value(parsing: nonceRequired, nonce) ?? provider.nonceRequired
        return provider
    }
}
