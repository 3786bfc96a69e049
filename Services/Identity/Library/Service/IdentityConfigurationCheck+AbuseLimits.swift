extension IdentityConfigurationCheck {
    /// The per-source, per-address and global limits on password hashing, failed passwords and email links: each
    /// must let at least one request through, over a positive window.
    static func validateAbuseLimits(_ configuration: IdentityConfiguration) throws {
        func require(_ condition: Bool, _ message: String) throws {
            if !condition { throw IdentityConfigurationError(message) }
        }
        let password = configuration.password
        try require(password.perSourceHashesPerMinute >= 1, "password.perSourceHashesPerMinute must be at least 1")
        try require(password.perSourceHashBurst >= 1, "password.perSourceHashBurst must be at least 1")
        try require(password.hashBudgetSourcesMax >= 1, "password.hashBudgetSourcesMax must be at least 1")
        try require(
            configuration.failedLogins.perAddressFreeAttempts >= 1,
            "failedLogins.perAddressFreeAttempts must be at least 1"
        )
        let links = configuration.emailLink
        try require(links.perSourceMax >= 1, "emailLink.perSourceMax must be at least 1")
        try require(links.globalMax >= 1, "emailLink.globalMax must be at least 1")
        for (name, window) in [
            ("emailLink.perAddressWindow", links.perAddressWindow),
            ("emailLink.perSourceWindow", links.perSourceWindow),
            ("emailLink.globalWindow", links.globalWindow),
        ] {
            try require(window > .zero, "\(name) must be positive")
        }
    }
}
