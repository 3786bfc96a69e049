import Foundation

extension IdentityConfigurationCheck {
    /// Sign in with Apple's revocation settings: the tokens are kept sealed, so a key-encryption key is required;
    /// the ids are non-empty and short; Apple's endpoint is https (plain http only with test identity providers);
    /// the client secret lives at most Apple's 6 months.
    static func validateAppleRevocation(_ configuration: IdentityConfiguration) throws {
        guard let settings = configuration.appleRevocation else { return }
        func require(_ condition: Bool, _ message: String) throws {
            if !condition { throw IdentityConfigurationError("appleRevocation: \(message)") }
        }
        try require(
            configuration.signingKeyEncryptionKey != nil,
            "the refresh tokens are kept sealed with the key-encryption key: give --signing-key-encryption-key-file"
        )
        try require((1...64).contains(settings.teamID.utf8.count), "the team id must be 1-64 bytes")
        try require((1...64).contains(settings.keyID.utf8.count), "the key id must be 1-64 bytes")
        let scheme = URL(string: settings.endpoint)?.scheme?.lowercased()
        try require(
            scheme == "https" || (scheme == "http" && configuration.allowTestIdentityProviders),
            "the endpoint must be an https URL (http only with test identity providers)"
        )
        try require(
            settings.requestTimeout > .zero && settings.exchangeTimeout > .zero,
            "the request and exchange timeouts must be positive"
        )
        try require(
            settings.clientSecretLifetime > .zero && settings.clientSecretLifetime <= .seconds(180 * 86_400),
            "the client secret's lifetime must be positive and at most 180 days"
        )
    }
}
