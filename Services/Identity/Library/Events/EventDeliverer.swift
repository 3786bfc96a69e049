import Foundation
import FoyerWebhooks
import Logging
import ServiceLifecycle

/// Delivers identity's events to the webhook endpoints, as a swift-service-lifecycle service beside the server.
///
/// Each round claims up to `batchSize` due events under a lease (`EventRecords.claim`: one event per uid, the uid's
/// earliest pending one) and POSTs them, at most `concurrency` at once, each to every endpoint in turn. An event is
/// delivered when every endpoint answered 2xx; anything else (another status, a timeout, a refused connection)
/// makes it due again after an exponential backoff with jitter, and failed after `attemptsMax` attempts. A replica
/// that dies mid-batch leaves its events leased: once the lease has passed, they are claimed and sent again, with
/// the same `webhook-id` (delivery is at least once). Graceful shutdown stops the round; what it had not recorded
/// goes again after the lease.
struct EventDeliverer: Service {
    let core: IdentityCore
    let settings: WebhookSettings
    let http: any HTTPClient

    /// How often the backlog gauges are measured: a count over the pending events, kept off every poll.
    static let backlogInterval: Duration = .seconds(10)

    func run() async throws {
        let logger = core.logger
        try? await cancelWhenGracefulShutdown { [self] in
            let clock = ContinuousClock()
            var backlogMeasured: ContinuousClock.Instant?
            while !Task.isCancelled {
                if backlogMeasured.map({ clock.now - $0 >= Self.backlogInterval }) ?? true {
                    backlogMeasured = clock.now
                    await measureBacklog()
                }
                var claimed = 0
                do {
                    claimed = try await deliverDue()
                } catch is CancellationError {
                    return
                } catch {
                    logger.warning("event delivery round failed", metadata: ["error": "\(error)"])
                }
                if claimed < settings.batchSize { try await Task.sleep(for: settings.pollInterval) }
            }
        }
    }

    /// Sets the backlog gauges; a failure leaves them as they were.
    private func measureBacklog() async {
        let backlog: (pending: Int64, oldest: Date?)
        do {
            backlog = try await core.database.withConnection { sql in try await EventRecords.backlog(sql) }
        } catch {
            core.logger.warning("measuring the event backlog failed", metadata: ["error": "\(error)"])
            return
        }
        let age = backlog.oldest.map { max(0, core.now.timeIntervalSince($0)) } ?? 0
        IdentityMetrics.eventBacklog(pending: backlog.pending, oldestAge: .milliseconds(Int64(age * 1000)))
    }

    /// Claims the due events and sends them; answers how many it claimed.
    func deliverDue() async throws -> Int {
        let now = core.now
        let events = try await core.database.transaction { sql in
            try await EventRecords.claim(
                sql,
                now: now,
                leaseUntil: now.adding(settings.lease),
                limit: settings.batchSize
            )
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            var waiting = events[...]
            for _ in 0..<min(settings.concurrency, waiting.count) {
                let event = waiting.removeFirst()
                group.addTask { try await self.deliver(event) }
            }
            while try await group.next() != nil {
                if let event = waiting.popFirst() { group.addTask { try await self.deliver(event) } }
            }
        }
        return events.count
    }

    /// Sends one event and records the outcome.
    private func deliver(_ event: ClaimedEvent) async throws {
        let failure = await send(event)
        try Task.checkCancellation()
        let now = core.now
        let attempts = event.attempts + 1
        let retryAt =
            attempts >= settings.attemptsMax
            ? nil : now.adding(Self.retryDelay(afterAttempts: attempts, settings: settings))
        try await core.database.transaction { sql in
            if let failure {
                try await EventRecords.markAttemptFailed(
                    sql,
                    position: event.position,
                    error: failure,
                    retryAt: retryAt,
                    now: now
                )
            } else {
                try await EventRecords.markDelivered(sql, position: event.position, now: now)
            }
        }
        IdentityMetrics.webhookAttempt(failure == nil ? .delivered : retryAt == nil ? .failed : .retrying)
        guard let failure else { return }
        core.logger.log(
            level: retryAt == nil ? .error : .notice,
            retryAt == nil ? "event not delivered; attempts exhausted, kept for a replay" : "event delivery failed",
            metadata: ["event.id": "\(event.id)", "event.attempts": "\(attempts)", "error": "\(failure)"]
        )
    }

    /// POSTs the event to every endpoint; nil when each answered 2xx, else what went wrong.
    private func send(_ event: ClaimedEvent) async -> String? {
        let timestamp = core.now.epochSeconds
        let headers = [
            "Content-Type": "application/json",
            "webhook-id": event.id,
            "webhook-timestamp": "\(timestamp)",
            "webhook-signature": WebhookSignature.header(
                secrets: settings.secrets,
                id: event.id,
                timestamp: timestamp,
                body: event.body
            ),
        ]
        for endpoint in settings.endpoints {
            let host = endpoint.host ?? "?"
            do {
                let response = try await http.post(
                    endpoint,
                    body: Array(event.body.utf8),
                    headers: headers,
                    timeout: settings.timeout
                )
                guard (200..<300).contains(response.status) else { return "\(host) answered HTTP \(response.status)" }
            } catch {
                return "\(host): \(error)"
            }
        }
        return nil
    }

    /// The wait after `attempts` failed attempts: `retryDelayMin` doubled per further failure, at most
    /// `retryDelayMax`, then a random half to all of it (jitter, so endpoints coming back are not hit at once).
    static func retryDelay(afterAttempts attempts: Int, settings: WebhookSettings) -> Duration {
        let doubled = settings.retryDelayMin.timeInterval * pow(2, Double(min(max(attempts - 1, 0), 40)))
        let capped = min(doubled, settings.retryDelayMax.timeInterval)
        return .milliseconds(Int64(capped * Double.random(in: 0.5...1.0) * 1000))
    }
}
