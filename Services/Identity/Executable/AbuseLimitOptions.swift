import ArgumentParser
import FoyerIdentity
import FoyerServiceKit

/// The options of identity's abuse limits: password hashing and failed passwords per client source, email links
/// per source, per address and in all, and how recent a sign-in must be to manage the account without the current
/// password. A flag wins over its environment variable, which wins over the default.
struct AbuseLimitOptions: ParsableArguments {
    @Option(
        help:
            "Password hashes one client address (IPv6: one /48) may cause per minute, per replica. (env: FOYER_PASSWORD_HASHES_PER_SOURCE_PER_MINUTE; default: 10)"
    )
    var passwordHashesPerSourcePerMinute: Int?
    @Option(
        help:
            "Password hashes one client address may cause at once. (env: FOYER_PASSWORD_HASH_BURST_PER_SOURCE; default: 10)"
    )
    var passwordHashBurstPerSource: Int?
    @Option(
        help:
            "Failed passwords for one email from one client address before each further one waits. (env: FOYER_FAILED_LOGINS_PER_SOURCE; default: 5)"
    )
    var failedLoginsPerSource: Int?
    @Option(
        help:
            "Failed passwords for one email from all addresses before each further one waits. (env: FOYER_FAILED_LOGINS_PER_ADDRESS; default: 50)"
    )
    var failedLoginsPerAddress: Int?
    @Option(
        help:
            "Failed passwords for one email from sources that have not signed in to it within the hour, after which such sources are refused before the check (at most 100). (env: FOYER_FAILED_LOGINS_PER_ADDRESS_MAX; default: 90)"
    )
    var failedLoginsPerAddressMax: Int?
    @Option(
        help:
            "Password-reset mails sent to one email address per hour, counted apart from its sign-in links. (env: FOYER_PASSWORD_RESETS_PER_ADDRESS_PER_HOUR; default: 3)"
    )
    var passwordResetsPerAddressPerHour: Int?
    @Option(
        help:
            "The part of the hourly email links only links to known addresses and password resets may use. (env: FOYER_EMAIL_LINKS_RESERVE; default: 200)"
    )
    var emailLinksReserve: Int?
    @Option(
        help:
            "Once the hourly email links are spent, links one client address may still ask for in the hour. (env: FOYER_EMAIL_LINKS_PER_SOURCE_PAST_LIMIT; default: 2)"
    )
    var emailLinksPerSourcePastLimit: Int?
    @Option(
        help:
            "Links sent per hour past the hourly limit through that allowance, at most. (env: FOYER_EMAIL_LINKS_PAST_LIMIT_PER_HOUR; default: 1000)"
    )
    var emailLinksPastLimitPerHour: Int?
    @Option(
        help:
            "Email links one client address (IPv6: one /48) may ask for per hour. (env: FOYER_EMAIL_LINKS_PER_SOURCE_PER_HOUR; default: 20)"
    )
    var emailLinksPerSourcePerHour: Int?
    @Option(
        help:
            "Email links sent to one email address per hour. (env: FOYER_EMAIL_LINKS_PER_ADDRESS_PER_HOUR; default: 5)"
    )
    var emailLinksPerAddressPerHour: Int?
    @Option(help: "Email links the service sends per hour in all. (env: FOYER_EMAIL_LINKS_PER_HOUR; default: 1000)")
    var emailLinksPerHour: Int?
    @Option(
        help:
            "Seconds after signing in during which a session may change the password or email, or remove a credential, without the current password. (env: FOYER_RECENT_SIGN_IN_SECONDS; default: 300)"
    )
    var recentSignInSeconds: Int?

    /// Sets the limits given by flags or environment on `configuration`; the others keep their defaults.
    func apply(to configuration: inout IdentityConfiguration) throws {
        let settings = SettingsReader()
        func limit(_ flag: Int?, _ name: String, _ variable: String) throws -> Int? {
            try settings.value(flag, .positive(name, variable))
        }
        configuration.password.perSourceHashesPerMinute =
            try limit(
                passwordHashesPerSourcePerMinute,
                "--password-hashes-per-source-per-minute",
                "FOYER_PASSWORD_HASHES_PER_SOURCE_PER_MINUTE"
            ) ?? configuration.password.perSourceHashesPerMinute
        configuration.password.perSourceHashBurst =
            try limit(
                passwordHashBurstPerSource,
                "--password-hash-burst-per-source",
                "FOYER_PASSWORD_HASH_BURST_PER_SOURCE"
            )
            ?? configuration.password.perSourceHashBurst
        configuration.failedLogins.freeAttempts =
            try limit(failedLoginsPerSource, "--failed-logins-per-source", "FOYER_FAILED_LOGINS_PER_SOURCE")
            ?? configuration.failedLogins.freeAttempts
        configuration.failedLogins.perAddressFreeAttempts =
            try limit(failedLoginsPerAddress, "--failed-logins-per-address", "FOYER_FAILED_LOGINS_PER_ADDRESS")
            ?? configuration.failedLogins.perAddressFreeAttempts
        func hourly(
            _ max: WritableKeyPath<EmailLinkSettings, Int>,
            _ window: WritableKeyPath<EmailLinkSettings, Duration>,
            _ value: Int?
        ) {
            guard let value else { return }
            configuration.emailLink[keyPath: max] = value
            configuration.emailLink[keyPath: window] = .seconds(3600)
        }
        let perSource = try limit(
            emailLinksPerSourcePerHour,
            "--email-links-per-source-per-hour",
            "FOYER_EMAIL_LINKS_PER_SOURCE_PER_HOUR"
        )
        hourly(\.perSourceMax, \.perSourceWindow, perSource)
        let perAddress = try limit(
            emailLinksPerAddressPerHour,
            "--email-links-per-address-per-hour",
            "FOYER_EMAIL_LINKS_PER_ADDRESS_PER_HOUR"
        )
        hourly(\.perAddressMax, \.perAddressWindow, perAddress)
        let inAll = try limit(emailLinksPerHour, "--email-links-per-hour", "FOYER_EMAIL_LINKS_PER_HOUR")
        hourly(\.globalMax, \.globalWindow, inAll)
        configuration.failedLogins.perAddressFailuresMax =
            try settings.value(
                failedLoginsPerAddressMax,
                .int("--failed-logins-per-address-max", "FOYER_FAILED_LOGINS_PER_ADDRESS_MAX", in: 1...100)
            ) ?? configuration.failedLogins.perAddressFailuresMax
        configuration.emailLink.perAddressResetMax =
            try limit(
                passwordResetsPerAddressPerHour,
                "--password-resets-per-address-per-hour",
                "FOYER_PASSWORD_RESETS_PER_ADDRESS_PER_HOUR"
            ) ?? configuration.emailLink.perAddressResetMax
        func count(_ flag: Int?, _ name: String, _ variable: String) throws -> Int? {
            try settings.value(flag, .nonNegative(name, variable))
        }
        configuration.emailLink.globalReserve =
            try count(emailLinksReserve, "--email-links-reserve", "FOYER_EMAIL_LINKS_RESERVE")
            ?? configuration.emailLink.globalReserve
        configuration.emailLink.perSourcePastGlobalMax =
            try count(
                emailLinksPerSourcePastLimit,
                "--email-links-per-source-past-limit",
                "FOYER_EMAIL_LINKS_PER_SOURCE_PAST_LIMIT"
            ) ?? configuration.emailLink.perSourcePastGlobalMax
        configuration.emailLink.pastGlobalMax =
            try count(
                emailLinksPastLimitPerHour,
                "--email-links-past-limit-per-hour",
                "FOYER_EMAIL_LINKS_PAST_LIMIT_PER_HOUR"
            ) ?? configuration.emailLink.pastGlobalMax
        let recent = Setting<Int>.int("--recent-sign-in-seconds", "FOYER_RECENT_SIGN_IN_SECONDS", in: 1...86_400)
        if let seconds = try settings.value(recentSignInSeconds, recent) {
            configuration.recentSignInWindow = .seconds(seconds)
        }
    }
}
