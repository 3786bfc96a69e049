import ArgumentParser
import FoyerIdentity
import FoyerServiceKit

/// The options of identity's abuse limits: password hashing and failed passwords per client source, email links
/// per source, per address and in all. A flag wins over its environment variable, which wins over the default.
struct AbuseLimitOptions: ParsableArguments {
    @Option(
        help:
            "Password hashes one client address (IPv6: one /64) may cause per minute, per replica. (env: FOYER_PASSWORD_HASHES_PER_SOURCE_PER_MINUTE; default: 10)"
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
            "Email links one client address may ask for per hour. (env: FOYER_EMAIL_LINKS_PER_SOURCE_PER_HOUR; default: 20)"
    )
    var emailLinksPerSourcePerHour: Int?
    @Option(
        help:
            "Email links sent to one email address per hour. (env: FOYER_EMAIL_LINKS_PER_ADDRESS_PER_HOUR; default: 5)"
    )
    var emailLinksPerAddressPerHour: Int?
    @Option(help: "Email links the service sends per hour in all. (env: FOYER_EMAIL_LINKS_PER_HOUR; default: 1000)")
    var emailLinksPerHour: Int?

    /// Sets the limits given by flags or environment on `configuration`; the others keep their defaults.
    func apply(to configuration: inout IdentityConfiguration) throws {
        let hour = Duration.seconds(3600)
        if let value = try number(passwordHashesPerSourcePerMinute, "FOYER_PASSWORD_HASHES_PER_SOURCE_PER_MINUTE") {
            configuration.password.perSourceHashesPerMinute = value
        }
        if let value = try number(passwordHashBurstPerSource, "FOYER_PASSWORD_HASH_BURST_PER_SOURCE") {
            configuration.password.perSourceHashBurst = value
        }
        if let value = try number(failedLoginsPerSource, "FOYER_FAILED_LOGINS_PER_SOURCE") {
            configuration.failedLogins.freeAttempts = value
        }
        if let value = try number(failedLoginsPerAddress, "FOYER_FAILED_LOGINS_PER_ADDRESS") {
            configuration.failedLogins.perAddressFreeAttempts = value
        }
        if let value = try number(emailLinksPerSourcePerHour, "FOYER_EMAIL_LINKS_PER_SOURCE_PER_HOUR") {
            configuration.emailLink.perSourceMax = value
            configuration.emailLink.perSourceWindow = hour
        }
        if let value = try number(emailLinksPerAddressPerHour, "FOYER_EMAIL_LINKS_PER_ADDRESS_PER_HOUR") {
            configuration.emailLink.perAddressMax = value
            configuration.emailLink.perAddressWindow = hour
        }
        if let value = try number(emailLinksPerHour, "FOYER_EMAIL_LINKS_PER_HOUR") {
            configuration.emailLink.globalMax = value
            configuration.emailLink.globalWindow = hour
        }
    }

    private func number(_ flag: Int?, _ variable: String) throws -> Int? {
        let text = flag.map(String.init) ?? ServiceOptions.environment(variable)
        guard let text else { return nil }
        guard let value = Int(text), value > 0 else {
            throw ValidationError("\(variable) (or its flag) must be a positive number, not '\(text)'")
        }
        return value
    }
}
