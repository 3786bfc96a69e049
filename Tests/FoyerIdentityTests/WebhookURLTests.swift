import FoyerStorage
import Logging
import Testing

@testable import FoyerIdentity

@Suite("Mail webhook URL")
struct WebhookURLTests {
    @Test("A webhook URL that does not parse is a configuration error, not a crash, even without the check")
    func unparsableWebhookURLThrows() throws {
        // Given a configuration that skipped IdentityConfigurationCheck, with a webhook URL that is no URL
        var configuration = IdentityConfiguration(
            database: DatabaseConfiguration(engine: .sqlite(path: "/nonexistent/identity.sqlite"))
        )
        configuration.mailer = .webhook(url: "", secret: nil)

        // When the mail route is chosen, then it throws a configuration error naming the webhook
        let error = #expect(throws: IdentityConfigurationError.self) {
            try IdentityService.mailDelivery(configuration, http: nil, logger: Logger(label: "foyer.identity.test"))
        }
        #expect(error?.description.contains("webhook") == true)
    }
}
