public import Foundation
import FoyerWebhooks

/// Where and how identity delivers its events (Standard Webhooks). Without these settings identity writes no
/// events at all (Services/Identity/README.md, "Events").
public struct WebhookSettings: Sendable {
    /// The endpoints, each POSTed every event: https, or http to a loopback host only.
    public var endpoints: [URL]
    /// The signing keys (the bytes after `whsec_`), newest first: each event is signed with every one of them, so
    /// an app can move to a new secret while the old one still verifies.
    public var secrets: [[UInt8]]
    /// How long one POST may take. Default 10 seconds.
    public var timeout: Duration = .seconds(10)
    /// Attempts before an event is marked failed (kept for a replay). Default 12.
    public var attemptsMax: Int = 12
    /// The wait after the first failed attempt; it doubles with each further failure. Default 5 seconds.
    public var retryDelayMin: Duration = .seconds(5)
    /// The longest wait between two attempts. Default 1 hour.
    public var retryDelayMax: Duration = .seconds(3600)
    /// How long a replica holds the events it claimed; another may send them once it has passed (the first
    /// crashed). Must be longer than an attempt takes (`timeout` per endpoint). Default 60 seconds.
    public var lease: Duration = .seconds(60)
    /// Events in flight at once, all endpoints together. Default 8.
    public var concurrency: Int = 8
    /// Events claimed at once. Default 64.
    public var batchSize: Int = 64
    /// How often the deliverer looks for due events when there were none. Default 1 second.
    public var pollInterval: Duration = .seconds(1)

    public init(endpoints: [URL], secrets: [[UInt8]]) {
        self.endpoints = endpoints
        self.secrets = secrets
    }

    /// The most endpoints and secrets.
    public static let endpointsMax = 4
    public static let secretsMax = Webhook.secretsMax

    /// What the settings break, or nil.
    func problem() -> String? {
        if endpoints.isEmpty || endpoints.count > Self.endpointsMax {
            return "webhooks need 1-\(Self.endpointsMax) endpoints"
        }
        if secrets.isEmpty || secrets.count > Self.secretsMax { return "webhooks need 1-\(Self.secretsMax) secrets" }
        if !(1...100).contains(attemptsMax) { return "webhook attempts must be 1-100" }
        if !(1...64).contains(concurrency) || !(1...1000).contains(batchSize) {
            return "webhook concurrency must be 1-64 and the batch 1-1000"
        }
        if retryDelayMin <= .zero || retryDelayMax < retryDelayMin { return "webhook retry delays are out of order" }
        if lease < timeout * endpoints.count + .seconds(1) {
            return "the webhook lease must exceed the timeout times the endpoints by a second at least"
        }
        return nil
    }
}
