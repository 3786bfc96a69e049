import Foundation
import FoyerAccessTokens
import FoyerCrypto

/// A setting of `IdentityConfiguration` that cannot work; the message names it.
public struct IdentityConfigurationError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// Refuses, at start-up, configurations that would fail later or silently weaken the service.
enum IdentityConfigurationCheck {
    static func validate(_ configuration: IdentityConfiguration) throws {
        func require(_ condition: Bool, _ message: String) throws {
            if !condition { throw IdentityConfigurationError(message) }
        }
        if let problem = IssuerURL.problem(with: configuration.issuer) { throw IdentityConfigurationError(problem) }
        try require(!configuration.audience.isEmpty, "audience must not be empty")
        for (name, duration) in [
            ("accessTokenLifetime", configuration.accessTokenLifetime),
            ("refreshIdleTimeout", configuration.refreshIdleTimeout),
            ("refreshAbsoluteLifetime", configuration.refreshAbsoluteLifetime),
            ("guestIdempotencyWindow", configuration.guestIdempotencyWindow),
            ("conflictTicketLifetime", configuration.conflictTicketLifetime),
            ("recentSignInWindow", configuration.recentSignInWindow),
            ("emailLink.lifetime", configuration.emailLink.lifetime),
            ("maintenanceInterval", configuration.maintenanceInterval),
        ] {
            try require(duration > .zero, "\(name) must be positive")
        }
        try require(configuration.refreshReuseGrace >= .zero, "refreshReuseGrace must not be negative")
        try require(configuration.eventRetention > .zero, "eventRetention must be positive")
        if let problem = configuration.webhooks?.problem() { throw IdentityConfigurationError(problem) }
        try require(
            configuration.signingKeyRotationInterval.map { $0 > configuration.signingKeyActivationDelay } ?? true,
            "signingKeyRotationInterval must be longer than signingKeyActivationDelay (nil turns the schedule off)"
        )
        try require(
            configuration.signingKeyActivationDelay >= .zero,
            "signingKeyActivationDelay must not be negative"
        )
        if let previous = configuration.previousSigningKeyEncryptionKey {
            try require(
                configuration.signingKeyEncryptionKey != nil,
                "previousSigningKeyEncryptionKey needs signingKeyEncryptionKey, the key to re-seal with"
            )
            try require(
                configuration.signingKeyEncryptionKey?.id != previous.id,
                "previousSigningKeyEncryptionKey is the same key as signingKeyEncryptionKey"
            )
        }
        try require(configuration.emailLink.lifetime <= .seconds(600), "emailLink.lifetime must be at most 10 minutes")
        try require(configuration.emailLink.linkTemplate.contains("{token}"), "emailLink.linkTemplate needs {token}")
        try require(
            configuration.emailLink.passwordResetLinkTemplate.contains("{token}"),
            "emailLink.passwordResetLinkTemplate needs {token}"
        )
        try require(
            configuration.emailLink.emailChangeLinkTemplate.contains("{token}"),
            "emailLink.emailChangeLinkTemplate needs {token}"
        )
        try require(configuration.emailLink.perAddressMax >= 1, "emailLink.perAddressMax must be at least 1")
        try validateAbuseLimits(configuration)
        try validateAppleRevocation(configuration)
        try require(configuration.password.hashConcurrencyMax >= 1, "password.hashConcurrencyMax must be at least 1")
        try require(configuration.password.minimumLength >= 1, "password.minimumLength must be at least 1")
        try require(configuration.failedLogins.freeAttempts >= 1, "failedLogins.freeAttempts must be at least 1")
        try require(configuration.maintenanceBatchSize >= 1, "maintenanceBatchSize must be at least 1")
        try require(configuration.guestKeySessionsMax >= 1, "guestKeySessionsMax must be at least 1")
        do {
            try configuration.password.scrypt.validate()
        } catch {
            throw IdentityConfigurationError("password.scrypt: \(error)")
        }
        do {
            try configuration.password.argon2.validate()
        } catch {
            throw IdentityConfigurationError("password.argon2: \(error)")
        }
        try validateMail(configuration)
        for (name, settings) in [("apple", configuration.apple), ("google", configuration.google)] {
            guard let settings else { continue }
            try require(!settings.issuers.isEmpty, "\(name).issuers must not be empty")
            try require(!settings.audiences.isEmpty, "\(name).audiences must not be empty")
            try checkKeySource(name, settings.keys, allowTest: configuration.allowTestIdentityProviders)
        }
    }

    /// Provider keys come from the provider's https URL. A JWKS file or a plain-http URL would let whoever writes
    /// the file or sits on the path sign ID tokens for any account: test settings, refused unless
    /// `allowTestIdentityProviders` says this is a test.
    private static func checkKeySource(
        _ name: String,
        _ keys: ProviderSettings.KeySource,
        allowTest: Bool
    ) throws {
        let flag = "allowTestIdentityProviders (--allow-test-identity-providers)"
        switch keys {
        case .url(let text):
            let scheme = URL(string: text)?.scheme?.lowercased()
            guard scheme == "https" || scheme == "http" else {
                throw IdentityConfigurationError("\(name).keys must be an http(s) URL")
            }
            guard scheme == "https" || allowTest else {
                throw IdentityConfigurationError("\(name).keys over plain http are for tests only; set \(flag)")
            }
        case .file:
            guard allowTest else {
                throw IdentityConfigurationError("\(name).keys from a JWKS file are for tests only; set \(flag)")
            }
        }
    }
}
