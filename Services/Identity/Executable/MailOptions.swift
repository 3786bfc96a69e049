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
            Webhook mailer: a file holding the secret that signs each POST (X-Foyer-Signature). The secret itself in \
            FOYER_MAIL_WEBHOOK_SECRET wins over any file. (env: FOYER_MAIL_WEBHOOK_SECRET_FILE)
            """
    )
    var mailWebhookSecretFile: String?

    /// Sets the mailer, local mode and the sender.
    func apply(to configuration: inout IdentityConfiguration) throws {
        configuration.localMode = localMode || ServiceOptions.environment("FOYER_LOCAL_MODE") == "1"
        if let sender = mailFrom ?? ServiceOptions.environment("FOYER_MAIL_FROM") {
            configuration.emailLink.sender = sender
        }
        let choice = mailer ?? ServiceOptions.environment("FOYER_MAILER") ?? "none"
        switch choice {
        case "none":
            configuration.mailer = .disabled
        case "outbox":
            configuration.mailer = .outbox
        case "smtp":
            configuration.mailer = .smtp(try smtpSettings())
        case _ where choice.hasPrefix("sendmail:"):
            configuration.mailer = .sendmail(path: String(choice.dropFirst("sendmail:".count)))
        case _ where choice.hasPrefix("webhook:"):
            configuration.mailer = .webhook(
                url: String(choice.dropFirst("webhook:".count)),
                secret: try webhookSecret()
            )
        default:
            throw ValidationError("mailer must be none, smtp, sendmail:PATH, webhook:URL or outbox, not '\(choice)'")
        }
    }

    private func smtpSettings() throws -> SMTPSettings {
        guard let host = smtpHost ?? ServiceOptions.environment("FOYER_SMTP_HOST") else {
            throw ValidationError("--mailer smtp needs --smtp-host (FOYER_SMTP_HOST)")
        }
        let securityText = smtpSecurity ?? ServiceOptions.environment("FOYER_SMTP_SECURITY") ?? "starttls"
        guard let security = SMTPSettings.Security(rawValue: securityText) else {
            throw ValidationError("FOYER_SMTP_SECURITY must be starttls, tls or none, not '\(securityText)'")
        }
        var settings = SMTPSettings(
            host: host,
            port: try number(smtpPort, "FOYER_SMTP_PORT"),
            security: security
        )
        settings.username = smtpUsername ?? ServiceOptions.environment("FOYER_SMTP_USERNAME")
        settings.password = try secret(
            inline: "FOYER_SMTP_PASSWORD",
            file: smtpPasswordFile ?? ServiceOptions.environment("FOYER_SMTP_PASSWORD_FILE")
        )
        settings.trustRootsFile = smtpCAFile ?? ServiceOptions.environment("FOYER_SMTP_CA_FILE")
        if let name = smtpEHLOName ?? ServiceOptions.environment("FOYER_SMTP_EHLO_NAME") { settings.ehloName = name }
        if let seconds = try number(smtpTimeoutSeconds, "FOYER_SMTP_TIMEOUT_SECONDS") {
            settings.commandTimeout = .seconds(seconds)
        }
        return settings
    }

    private func webhookSecret() throws -> String? {
        try secret(
            inline: "FOYER_MAIL_WEBHOOK_SECRET",
            file: mailWebhookSecretFile ?? ServiceOptions.environment("FOYER_MAIL_WEBHOOK_SECRET_FILE")
        )
    }

    /// The secret in the environment variable `inline`, else the contents of `file` without the line break at its
    /// end, else nil.
    private func secret(inline: String, file: String?) throws -> String? {
        if let text = ServiceOptions.environment(inline) { return text }
        guard let file else { return nil }
        guard var text = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw ValidationError("cannot read the secret file \(file)")
        }
        while let last = text.unicodeScalars.last, last == "\n" || last == "\r" { text.unicodeScalars.removeLast() }
        guard !text.isEmpty else { throw ValidationError("the secret file \(file) is empty") }
        return text
    }

    private func number(_ flag: Int?, _ variable: String) throws -> Int? {
        if let flag { return flag }
        guard let text = ServiceOptions.environment(variable) else { return nil }
        guard let value = Int(text), value > 0 else { throw ValidationError("\(variable) must be a positive number") }
        return value
    }
}
