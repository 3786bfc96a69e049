import ArgumentParser
import Foundation
import FoyerIdentity
import FoyerServiceKit
import FoyerWebhooks

/// Where identity delivers its events (Standard Webhooks), each setting also from the environment variable its help
/// names. Without endpoints, no event is written.
struct WebhookOptions: ParsableArguments {
    // Named explicitly: swift-argument-parser would spell the property's name `--webhook-ur-ls`.
    @Option(
        name: .customLong("webhook-urls"),
        help: """
            Webhook endpoints that receive identity's events (user.created, user.linked, user.merged, user.deleted, \
            plan.changed), comma-separated, 1-4: https, or http to a loopback host. Needs --webhook-secret-file. \
            (env: FOYER_WEBHOOK_URLS; default: none, and no event is written)
            """
    )
    var webhookURLs: String?

    @Option(
        help: """
            A file holding the signing secret, whsec_ and the base64 of 24-64 random bytes; a second line adds a \
            second secret (both sign while the app moves from one to the other). (env: FOYER_WEBHOOK_SECRET_FILE)
            """
    )
    var webhookSecretFile: String?

    @Option(help: "Seconds one POST may take. (env: FOYER_WEBHOOK_TIMEOUT_SECONDS; default: 10)")
    var webhookTimeoutSeconds: Int?

    @Option(
        help: "Attempts before an event is marked failed. (env: FOYER_WEBHOOK_ATTEMPTS; default: 12)"
    )
    var webhookAttempts: Int?

    @Option(
        help: """
            Milliseconds before the first retry; each further failure doubles it. \
            (env: FOYER_WEBHOOK_RETRY_MIN_MILLISECONDS; default: 5000)
            """
    )
    var webhookRetryMinMilliseconds: Int?

    @Option(
        help: "Longest wait between two attempts, seconds. (env: FOYER_WEBHOOK_RETRY_MAX_SECONDS; default: 3600)"
    )
    var webhookRetryMaxSeconds: Int?

    @Option(
        help: """
            Seconds a replica holds the events it is sending; another sends them once it has passed. Must exceed the \
            timeout times the endpoints. (env: FOYER_WEBHOOK_LEASE_SECONDS; default: 60)
            """
    )
    var webhookLeaseSeconds: Int?

    @Option(help: "Events sent at once. (env: FOYER_WEBHOOK_CONCURRENCY; default: 8)")
    var webhookConcurrency: Int?

    @Option(
        help: """
            Milliseconds between looks for due events when there were none. \
            (env: FOYER_WEBHOOK_POLL_MILLISECONDS; default: 1000)
            """
    )
    var webhookPollMilliseconds: Int?

    @Option(
        help:
            "Days an event is kept after it occurred, whatever its state. (env: FOYER_EVENT_RETENTION_DAYS; default: 7)"
    )
    var eventRetentionDays: Int?

    /// Sets `webhooks` (nil without endpoints) and the event retention.
    func apply(to configuration: inout IdentityConfiguration) throws {
        let settings = SettingsReader()
        let retention = Setting<Int>.int("--event-retention-days", "FOYER_EVENT_RETENTION_DAYS", in: 1...3650)
        if let days = try settings.value(eventRetentionDays, retention) {
            configuration.eventRetention = .seconds(days * 86_400)
        }
        let urls = Setting<[String]>.list("--webhook-urls", "FOYER_WEBHOOK_URLS")
        guard let texts = try settings.value(parsing: webhookURLs, urls), !texts.isEmpty else { return }
        let secretFile = Setting<String>.text("--webhook-secret-file", "FOYER_WEBHOOK_SECRET_FILE")
        guard let file = try settings.value(webhookSecretFile, secretFile) else {
            throw ValidationError("--webhook-urls needs --webhook-secret-file (FOYER_WEBHOOK_SECRET_FILE)")
        }
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw ValidationError("cannot read the webhook secret file \(file)")
        }
        var webhooks: WebhookSettings
        do {
            webhooks = WebhookSettings(
                endpoints: try texts.map(Webhook.endpoint),
                secrets: try Webhook.secrets(fromFileText: text)
            )
        } catch let error as WebhookError {
            throw ValidationError(error.description)
        }
        try tune(&webhooks, settings)
        configuration.webhooks = webhooks
    }

    private func tune(_ webhooks: inout WebhookSettings, _ settings: SettingsReader) throws {
        let timeout = Setting<Int>.int("--webhook-timeout-seconds", "FOYER_WEBHOOK_TIMEOUT_SECONDS", in: 1...300)
        if let seconds = try settings.value(webhookTimeoutSeconds, timeout) { webhooks.timeout = .seconds(seconds) }
        let attempts = Setting<Int>.int("--webhook-attempts", "FOYER_WEBHOOK_ATTEMPTS", in: 1...100)
        webhooks.attemptsMax = try settings.value(webhookAttempts, attempts) ?? webhooks.attemptsMax
        let retryMin = Setting<Int>.int(
            "--webhook-retry-min-milliseconds",
            "FOYER_WEBHOOK_RETRY_MIN_MILLISECONDS",
            in: 1...3_600_000
        )
        if let milliseconds = try settings.value(webhookRetryMinMilliseconds, retryMin) {
            webhooks.retryDelayMin = .milliseconds(milliseconds)
        }
        let retryMax = Setting<Int>.int(
            "--webhook-retry-max-seconds",
            "FOYER_WEBHOOK_RETRY_MAX_SECONDS",
            in: 1...86_400
        )
        if let seconds = try settings.value(webhookRetryMaxSeconds, retryMax) {
            webhooks.retryDelayMax = .seconds(seconds)
        }
        let lease = Setting<Int>.int("--webhook-lease-seconds", "FOYER_WEBHOOK_LEASE_SECONDS", in: 2...3600)
        if let seconds = try settings.value(webhookLeaseSeconds, lease) { webhooks.lease = .seconds(seconds) }
        let concurrency = Setting<Int>.int("--webhook-concurrency", "FOYER_WEBHOOK_CONCURRENCY", in: 1...64)
        webhooks.concurrency = try settings.value(webhookConcurrency, concurrency) ?? webhooks.concurrency
        let poll = Setting<Int>.int("--webhook-poll-milliseconds", "FOYER_WEBHOOK_POLL_MILLISECONDS", in: 10...60_000)
        if let milliseconds = try settings.value(webhookPollMilliseconds, poll) {
            webhooks.pollInterval = .milliseconds(milliseconds)
        }
    }
}
