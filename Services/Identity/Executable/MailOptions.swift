import ArgumentParser
import Foundation
import FoyerIdentity
import FoyerServiceKit

/// How identity sends email links: the mailer and its settings, each also from the environment variable its help
/// names. Without a mailer, email links are refused with `mail-unavailable`.
struct MailOptions: ParsableArguments {
    @Option(
        help: """
            Mailer for email links: none, smtp (the --smtp-* settings), sendmail:PATH, webhook:URL, or outbox (local \
            mode only). (env: FOYER_MAILER; default: none, which refuses email links with mail-unavailable)
            """
    )
    var mailer: String?

    @Flag(
        help: """
            LOCAL MODE, for a developer's machine and tests only: allows --mailer outbox, which keeps live sign-in \
            links in the database for `foyer outbox`. Never where the internet reaches. (env: FOYER_LOCAL_MODE=1)
            """
    )
    var localMode = false

    @Flag(
        help: """
            Accept password resets and email changes asked for without a verifier challenge (their links then work \
            on any device), for apps released before it was required. (env: FOYER_ALLOW_UNBOUND_EMAIL_LINKS=1)
            """
    )
    var allowUnboundEmailLinks = false

    @Option(
        help: """
            What sign-in and link emails carry: link (works only in the app that asked), code (six digits, any \
            device), or both. (env: FOYER_EMAIL_LINK_DELIVERY; default: both)
            """
    )
    var emailLinkDelivery: String?

    @Option(help: "Sender of the emails, `Name <address>`. (env: FOYER_MAIL_FROM; default: Foyer <no-reply@localhost>)")
    var mailFrom: String?

    @Option(help: "SMTP: the submission server's host name. (env: FOYER_SMTP_HOST)")
    var smtpHost: String?

    @Option(help: "SMTP: the server's port. (env: FOYER_SMTP_PORT; default: 587, 465 with tls, 25 with none)")
    var smtpPort: Int?

    @Option(
        help: """
            SMTP: starttls, tls (implicit, SMTPS) or none (a relay on a private network; no credentials). \
            (env: FOYER_SMTP_SECURITY; default: starttls)
            """
    )
    var smtpSecurity: String?

    @Option(help: "SMTP: AUTH user name; without it, no AUTH. (env: FOYER_SMTP_USERNAME)")
    var smtpUsername: String?

    @Option(
        help: """
            SMTP: a file holding the AUTH password. The password itself in FOYER_SMTP_PASSWORD wins over any file. \
            (env: FOYER_SMTP_PASSWORD_FILE)
            """
    )
    var smtpPasswordFile: String?

    @Option(help: "SMTP: PEM certificates to trust instead of the system's roots. (env: FOYER_SMTP_CA_FILE)")
    var smtpCAFile: String?

    @Option(help: "SMTP: the name identity gives in EHLO. (env: FOYER_SMTP_EHLO_NAME; default: localhost)")
    var smtpEHLOName: String?

    @Option(
        help: "SMTP: seconds the server may take to answer a command. (env: FOYER_SMTP_TIMEOUT_SECONDS; default: 20)"
    )
    var smtpTimeoutSeconds: Int?

    @Option(
        help: """
            Webhook mailer (required with it): a file holding the secret, 16 bytes or more, that signs each POST as \
            Standard Webhooks do (webhook-id, webhook-timestamp, webhook-signature). The secret itself in \
            FOYER_MAIL_WEBHOOK_SECRET wins over any file. (env: FOYER_MAIL_WEBHOOK_SECRET_FILE)
            """
    )
    var mailWebhookSecretFile: String?

    /// Sets the mailer, local mode, the sender and what sign-in and link emails carry.
    func apply(to configuration: inout IdentityConfiguration) throws {
        let settings = SettingsReader()
        configuration.localMode = settings.isOn(localMode, "FOYER_LOCAL_MODE")
        configuration.emailLink.unboundLinksAllowed = settings.isOn(
            allowUnboundEmailLinks,
            "FOYER_ALLOW_UNBOUND_EMAIL_LINKS"
        )
        configuration.emailLink.sender =
            try settings.value(mailFrom, .text("--mail-from", "FOYER_MAIL_FROM")) ?? configuration.emailLink.sender
        configuration.emailLink.delivery =
            try settings.value(
                parsing: emailLinkDelivery,
                .choice(
                    "--email-link-delivery",
                    "FOYER_EMAIL_LINK_DELIVERY",
                    of: EmailLinkDelivery.allCases.map(\.rawValue)
                )
            ) ?? configuration.emailLink.delivery
        let choice = try settings.value(mailer, .text("--mailer", "FOYER_MAILER")) ?? "none"
        switch choice {
        case "none":
            configuration.mailer = .disabled
        case "outbox":
            configuration.mailer = .outbox
        case "smtp":
            configuration.mailer = .smtp(try smtpSettings(settings))
        case _ where choice.hasPrefix("sendmail:"):
            configuration.mailer = .sendmail(path: String(choice.dropFirst("sendmail:".count)))
        case _ where choice.hasPrefix("webhook:"):
            let secretFile = Setting<String>.text("--mail-webhook-secret-file", "FOYER_MAIL_WEBHOOK_SECRET_FILE")
            configuration.mailer = .webhook(
                url: String(choice.dropFirst("webhook:".count)),
                secret: try secret(
                    settings,
                    inline: "FOYER_MAIL_WEBHOOK_SECRET",
                    file: mailWebhookSecretFile,
                    secretFile
                )
            )
        default:
            throw ValidationError(
                "--mailer / FOYER_MAILER must be none, smtp, sendmail:PATH, webhook:URL or outbox, not '\(choice)'"
            )
        }
    }

    private func smtpSettings(_ settings: SettingsReader) throws -> SMTPSettings {
        guard let host = try settings.value(smtpHost, .text("--smtp-host", "FOYER_SMTP_HOST")) else {
            throw ValidationError("--mailer smtp needs --smtp-host (FOYER_SMTP_HOST)")
        }
        let security: SMTPSettings.Security =
            try settings.value(
                parsing: smtpSecurity,
                .choice("--smtp-security", "FOYER_SMTP_SECURITY", of: SMTPSettings.Security.allCases.map(\.rawValue))
            ) ?? .startTLS
        var smtp = SMTPSettings(
            host: host,
            port: try settings.value(smtpPort, .int("--smtp-port", "FOYER_SMTP_PORT", in: 1...65535)),
            security: security
        )
        smtp.username = try settings.value(smtpUsername, .text("--smtp-username", "FOYER_SMTP_USERNAME"))
        let passwordFile = Setting<String>.text("--smtp-password-file", "FOYER_SMTP_PASSWORD_FILE")
        smtp.password = try secret(settings, inline: "FOYER_SMTP_PASSWORD", file: smtpPasswordFile, passwordFile)
        smtp.trustRootsFile = try settings.value(smtpCAFile, .text("--smtp-ca-file", "FOYER_SMTP_CA_FILE"))
        smtp.ehloName =
            try settings.value(smtpEHLOName, .text("--smtp-ehlo-name", "FOYER_SMTP_EHLO_NAME")) ?? smtp.ehloName
        let timeout = Setting<Int>.positive("--smtp-timeout-seconds", "FOYER_SMTP_TIMEOUT_SECONDS")
        if let seconds = try settings.value(smtpTimeoutSeconds, timeout) { smtp.commandTimeout = .seconds(seconds) }
        return smtp
    }

    /// The secret in the environment variable `inline`, else the contents of the file the flag or its variable
    /// names, without the line break at its end, else nil.
    private func secret(
        _ settings: SettingsReader,
        inline: String,
        file flag: String?,
        _ fileSetting: Setting<String>
    ) throws -> String? {
        if let text = settings.text(inline) { return text }
        guard let file = try settings.value(flag, fileSetting) else { return nil }
        guard var text = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw ValidationError("cannot read the secret file \(file)")
        }
        while let last = text.unicodeScalars.last, last == "\n" || last == "\r" { text.unicodeScalars.removeLast() }
        guard !text.isEmpty else { throw ValidationError("the secret file \(file) is empty") }
        return text
    }
}
