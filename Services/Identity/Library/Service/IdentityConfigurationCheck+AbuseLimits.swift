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
        try validateFailuresPerHour(configuration.failedLogins)
        let links = configuration.emailLink
        try require(links.perSourceMax >= 1, "emailLink.perSourceMax must be at least 1")
        try require(links.globalMax >= 1, "emailLink.globalMax must be at least 1")
        try require(
            (0..<links.globalMax).contains(links.globalReserve),
            "emailLink.globalReserve must be at least 0 and less than emailLink.globalMax"
        )
        try require(links.perAddressResetMax >= 1, "emailLink.perAddressResetMax must be at least 1")
        try require(links.perSourcePastGlobalMax >= 0, "emailLink.perSourcePastGlobalMax must not be negative")
        try require(links.pastGlobalMax >= 0, "emailLink.pastGlobalMax must not be negative")
        for (name, window) in [
            ("emailLink.perAddressWindow", links.perAddressWindow),
            ("emailLink.perSourceWindow", links.perSourceWindow),
            ("emailLink.globalWindow", links.globalWindow),
        ] {
            try require(window > .zero, "\(name) must be positive")
        }
    }

    /// The most failed passwords an hour may see on one address from untrusted sources (checklist: at most 100
    /// an hour per account, without locking the owner out). The address's count stops at `perAddressFailuresMax`
    /// and is forgotten only `resetAfter` after its last failure, so an hour holds the failures of at most
    /// ceil(1 h / resetAfter) counts: with the defaults (90, 1 h) at most 90.
    static func failuresPerHourBound(_ policy: FailedLoginPolicy) -> Int {
        let counts = Int((3600 / policy.resetAfter.timeInterval).rounded(.up))
        return policy.perAddressFailuresMax * max(1, counts)
    }

    private static func validateFailuresPerHour(_ policy: FailedLoginPolicy) throws {
        guard policy.perAddressFailuresMax >= 1, policy.resetAfter > .zero else {
            throw IdentityConfigurationError(
                "failedLogins.perAddressFailuresMax must be at least 1 and failedLogins.resetAfter positive"
            )
        }
        let bound = failuresPerHourBound(policy)
        guard bound <= 100 else {
            throw IdentityConfigurationError(
                "failedLogins allows \(bound) failed passwords an hour on one address (perAddressFailuresMax "
                    + "\(policy.perAddressFailuresMax), resetAfter \(policy.resetAfter)); at most 100 are allowed"
            )
        }
    }
}
