import Foundation
import FoyerCrypto
import FoyerStorage
import Logging

/// What every handler of the identity service shares. Handlers are extensions of this type, one file per area
/// (`IdentityCore+Guests.swift`, `IdentityCore+Refresh.swift`, ...).
final class IdentityCore: Sendable {
    let configuration: IdentityConfiguration
    let database: FoyerDatabase
    let keys: SigningKeyRing
    let hasher: PasswordHasher
    let mail: MailDelivery
    let apple: ProviderTokenVerifier?
    let google: ProviderTokenVerifier?
    /// Sign in with Apple's token endpoint, to exchange authorization codes and revoke the tokens; nil without the
    /// Apple client-secret settings.
    let appleEndpoint: AppleTokenEndpoint?
    let activity: ActivityRecorder
    let statistics: IdentityStatistics
    let logger: Logger

    init(
        configuration: IdentityConfiguration,
        database: FoyerDatabase,
        keys: SigningKeyRing,
        hasher: PasswordHasher,
        mail: MailDelivery,
        apple: ProviderTokenVerifier?,
        google: ProviderTokenVerifier?,
        appleEndpoint: AppleTokenEndpoint? = nil,
        statistics: IdentityStatistics,
        logger: Logger
    ) {
        self.configuration = configuration
        self.database = database
        self.keys = keys
        self.hasher = hasher
        self.mail = mail
        self.apple = apple
        self.google = google
        self.appleEndpoint = appleEndpoint
        self.activity = ActivityRecorder(interval: configuration.activityRecordInterval)
        self.statistics = statistics
        self.logger = logger
    }

    /// The current time, from the configured clock.
    var now: Date { configuration.now() }
}
