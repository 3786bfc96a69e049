import Foundation
import FoyerWebhooks

/// How emails are delivered.
public enum MailerChoice: Sendable, Equatable {
    /// No mailer: email links are refused with `mail-unavailable` (the default; passwords and ID tokens work).
    case disabled
    /// Into the database's outbox table, readable with `listOutbox` through the cluster-secret listener. Local
    /// mode only (`IdentityConfiguration.localMode`): the outbox holds live sign-in links.
    case outbox
    /// Submission to an SMTP server (STARTTLS or implicit TLS, AUTH, retries of transient failures).
    case smtp(SMTPSettings)
    /// Through a `sendmail`-compatible program, run as `path -t -i` with the message on stdin.
    case sendmail(path: String)
    /// As a JSON POST to an https URL (http only to a loopback host), signed with the secret as Standard Webhooks
    /// sign (`WebhookMailer`). The secret is required: the start fails without one (`webhookSecretByteCountMin`).
    case webhook(url: String, secret: String?)

    /// The fewest bytes a mail webhook's secret may have.
    public static let webhookSecretByteCountMin = 16

    /// The name used in settings and logs (never a URL, path or credential).
    public var name: String {
        switch self {
        case .disabled: "none"
        case .outbox: "outbox"
        case .smtp: "smtp"
        case .sendmail: "sendmail"
        case .webhook: "webhook"
        }
    }
}

extension IdentityConfigurationCheck {
    /// Refuses mail settings that cannot work or would expose sign-in links: the outbox outside local mode, an
    /// SMTP setup that would send a password in the clear, an envelope sender that is not an address.
    static func validateMail(_ configuration: IdentityConfiguration) throws {
        func require(_ condition: Bool, _ message: String) throws {
            if !condition { throw IdentityConfigurationError(message) }
        }
        try require(
            MailAddress.envelope(of: configuration.emailLink.sender) != nil,
            "emailLink.sender must be an address, alone or as `Name <address>`"
        )
        try require(configuration.emailLink.outboxRetention > .zero, "emailLink.outboxRetention must be positive")
        switch configuration.mailer {
        case .disabled:
            break
        case .outbox:
            try require(
                configuration.localMode,
                "the outbox mailer keeps live sign-in links readable in the database: it needs local mode "
                    + "(--local-mode), which must never face the internet; configure smtp, sendmail or webhook instead"
            )
        case .smtp(let settings):
            try settings.validate()
        case .sendmail(let path):
            try require(path.hasPrefix("/"), "the sendmail program must be given by an absolute path")
        case .webhook(let text, let secret):
            // The POSTs carry live sign-in links: the same rules as the events' endpoints.
            do {
                _ = try Webhook.endpoint(text)
            } catch {
                throw IdentityConfigurationError("the mail webhook: \(error)")
            }
            try require(
                (secret?.utf8.count ?? 0) >= MailerChoice.webhookSecretByteCountMin,
                "the mail webhook needs a secret of at least \(MailerChoice.webhookSecretByteCountMin) bytes "
                    + "(--mail-webhook-secret-file): its POSTs carry live sign-in links"
            )
        }
    }
}

/// Envelope addresses for SMTP, taken from header values.
enum MailAddress {
    /// The address of `Name <address>` or of a bare `address`, if it is one an SMTP envelope can carry: an `@`,
    /// and no spaces, angle brackets or control characters.
    static func envelope(of text: String) -> String? {
        var address = text.trimmingCharacters(in: .whitespaces)
        if let open = address.lastIndex(of: "<"), address.hasSuffix(">") {
            address = String(address[address.index(after: open)..<address.index(before: address.endIndex)])
        }
        let forbidden = address.unicodeScalars.contains { scalar in
            scalar.value < 0x21 || scalar.value == 0x7F || scalar == "<" || scalar == ">"
        }
        guard !forbidden, address.contains("@"), address.utf8.count <= 254 else { return nil }
        return address
    }
}
