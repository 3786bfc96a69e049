import Foundation
import FoyerAPI
import FoyerStorage
import FoyerTestSupport
import FoyerWebhooks
import SQLKit
import Testing

@testable import FoyerIdentity

/// identity's outbox of events (`identity_events`): what is written with each change, how the deliverer claims
/// events (one per uid at a time, under a lease, never twice at once), and the retention.
@Suite("Events outbox")
struct EventOutboxTests {
    static func withWebhooks(_ configuration: inout IdentityConfiguration) {
        configuration.webhooks = WebhookSettings(
            endpoints: [URL(string: "http://127.0.0.1:9/events")!],
            secrets: [Array(repeating: 7, count: 32)]
        )
    }

    @Test("Without webhooks no event is written", arguments: TestEngine.allCases)
    func noWebhooksNoEvents(engine: TestEngine) async throws {
        try await withIdentity(engine) { identity in
            _ = try await identity.newGuest()
            #expect(try await identity.count("identity_events") == 0)
        }
    }

    @Test(
        "A guest's creation, link and deletion write user.created, user.linked, plan.changed, user.deleted, numbered",
        arguments: TestEngine.allCases
    )
    func eventsOfAUser(engine: TestEngine) async throws {
        try await withIdentity(engine, configure: Self.withWebhooks) { identity in
            let guest = try await identity.newGuest()
            try await identity.call(
                IdentityMethods.linkPassword,
                LinkPasswordRequest(uid: guest.uid, email: "events@example.com", password: "events' password")
            )
            try await identity.call(
                IdentityMethods.beginDelete,
                BeginDeleteRequest(uid: guest.uid, operationID: "ttl-0123", reason: .ttl)
            )
            try await identity.call(
                IdentityMethods.finishDelete,
                FinishDeleteRequest(uid: guest.uid, operationID: "ttl-0123")
            )
            // A repeat finds the deletion finished and writes nothing
            try await identity.call(
                IdentityMethods.finishDelete,
                FinishDeleteRequest(uid: guest.uid, operationID: "ttl-0123")
            )

            let page = try await identity.call(IdentityMethods.listEvents, ListEventsRequest(uid: guest.uid))
            let events = page.events.reversed().map { $0 }
            #expect(events.map(\.type) == ["user.created", "user.linked", "plan.changed", "user.deleted"])
            #expect(events.map(\.sequence) == [1, 2, 3, 4])
            #expect(events.allSatisfy { $0.state == .pending && $0.attempts == 0 })
            let bodies = try events.map { try JSONValueReader.object($0.body) }
            #expect(bodies.map { $0["id"] as? String } == events.map(\.id))
            #expect((bodies[1]["data"] as? [String: Any])?["credential"] as? String == "password")
            #expect((bodies[3]["data"] as? [String: Any])?["reason"] as? String == "ttl")
            #expect(!events.contains { $0.body.contains("events@example.com") || $0.body.contains("events' password") })

            let one = try await identity.call(IdentityMethods.getEvent, EventRequest(id: events[0].id))
            #expect(one == events[0])
            #expect(await identity.status(IdentityMethods.getEvent, EventRequest(id: "evt_none")) == .notFound)
        }
    }

    @Test(
        "The deliverer claims each uid's earliest pending event only, under a lease; delivered or failed, the next follows",
        arguments: TestEngine.allCases
    )
    func claimsFollowEachUID(engine: TestEngine) async throws {
        try await withIdentity(engine, configure: Self.withWebhooks) { identity in
            let first = try await identity.newGuest()
            let second = try await identity.newGuest()
            try await identity.call(
                IdentityMethods.linkPassword,
                LinkPasswordRequest(uid: first.uid, email: "claims@example.com", password: "claims' password")
            )
            let now = identity.clock.now()
            func claim(at time: Date) async throws -> [ClaimedEvent] {
                try await identity.database.transaction { sql in
                    try await EventRecords.claim(sql, now: time, leaseUntil: time.addingTimeInterval(60), limit: 10)
                }
            }

            // Given four events, three of the first guest: only its earliest and the second guest's are claimed
            let claimed = try await claim(at: now)
            #expect(claimed.map(\.uid) == [first.uid, second.uid])
            #expect(try await claim(at: now).isEmpty, "claimed again under the lease")

            // When the first is delivered, its uid's next event is due; once the lease has passed, the second's again
            try await identity.database.transaction { sql in
                try await EventRecords.markDelivered(sql, position: claimed[0].position, now: now)
            }
            let next = try await claim(at: now)
            #expect(next.map(\.uid) == [first.uid] && next[0].position > claimed[0].position)
            let afterLease = try await claim(at: now.addingTimeInterval(61))
            #expect(Set(afterLease.map(\.position)) == Set([claimed[1].position, next[0].position]))

            // ...and a failed event (attempts exhausted) lets the uid's later events go
            try await identity.database.transaction { sql in
                try await EventRecords.markAttemptFailed(
                    sql,
                    position: next[0].position,
                    error: "HTTP 500",
                    retryAt: nil,
                    now: now
                )
            }
            let later = try await claim(at: now.addingTimeInterval(200))
            #expect(later.contains { $0.uid == first.uid && $0.position > next[0].position })
            let failed = try await identity.call(IdentityMethods.listEvents, ListEventsRequest(state: .failed))
            #expect(
                failed.events.map(\.position) == [UInt64(next[0].position)] && failed.events[0].lastError == "HTTP 500"
            )
        }
    }

    @Test("Two replicas claiming at once never take the same event", arguments: TestEngine.allCases)
    func concurrentClaimsAreDisjoint(engine: TestEngine) async throws {
        try await withIdentity(engine, configure: Self.withWebhooks) { identity in
            for _ in 0..<40 { _ = try await identity.newGuest() }
            let now = identity.clock.now()
            let database = identity.database
            @Sendable func claim() async throws -> [Int64] {
                try await database.transaction { sql in
                    try await EventRecords.claim(sql, now: now, leaseUntil: now.addingTimeInterval(60), limit: 25)
                }.map(\.position)
            }
            async let one = claim()
            async let other = claim()
            let (a, b) = try await (one, other)
            #expect(Set(a).isDisjoint(with: b), "claimed twice: \(Set(a).intersection(b))")
            #expect(a.count + b.count == 40)
        }
    }

    @Test(
        "The backlog counts pending events and dates the oldest; delivered and failed ones leave it",
        arguments: TestEngine.allCases
    )
    func backlog(engine: TestEngine) async throws {
        try await withIdentity(engine, configure: Self.withWebhooks) { identity in
            let empty = try await identity.database.withConnection { sql in try await EventRecords.backlog(sql) }
            #expect(empty.pending == 0 && empty.oldest == nil)
            let created = identity.clock.now()
            _ = try await identity.newGuest()
            identity.clock.advance(by: .seconds(5))
            _ = try await identity.newGuest()
            let two = try await identity.database.withConnection { sql in try await EventRecords.backlog(sql) }
            #expect(two.pending == 2)
            #expect(
                abs((two.oldest ?? .distantPast).timeIntervalSince(created)) < 0.001,
                "\(String(describing: two.oldest))"
            )
            let events = try await identity.call(IdentityMethods.listEvents, ListEventsRequest()).events
            try await identity.database.transaction { sql in
                let oldest = Int64(events.map(\.position).min() ?? 0)
                try await EventRecords.markDelivered(sql, position: oldest, now: identity.clock.now())
            }
            let one = try await identity.database.withConnection { sql in try await EventRecords.backlog(sql) }
            #expect(one.pending == 1 && one.oldest.map { $0 > created } == true)
        }
    }

    @Test("Replaying makes an event pending and due again; maintenance removes events past the retention")
    func replayAndRetention() async throws {
        try await withIdentity(.sqlite, configure: Self.withWebhooks) { identity in
            _ = try await identity.newGuest()
            let event = try #require(
                try await identity.call(IdentityMethods.listEvents, ListEventsRequest()).events.first
            )
            try await identity.database.transaction { sql in
                let position = Int64(event.position)
                try await EventRecords.markAttemptFailed(sql, position: position, error: "x", retryAt: nil, now: Date())
            }
            let replayed = try await identity.call(IdentityMethods.replayEvent, EventRequest(id: event.id))
            #expect(replayed.state == .pending && replayed.attempts == 0 && replayed.lastError == nil)
            #expect(await identity.status(IdentityMethods.replayEvent, EventRequest(id: "evt_none")) == .notFound)

            identity.clock.advance(by: .seconds(7 * 86_400 - 1))
            try await identity.service.runMaintenance()
            #expect(try await identity.count("identity_events") == 1)
            identity.clock.advance(by: .seconds(2))
            try await identity.service.runMaintenance()
            #expect(try await identity.count("identity_events") == 0)
        }
    }

    @Test("Signatures are Standard Webhooks' (its published example); endpoints are https or loopback; secrets whsec_")
    func signaturesAndSettings() throws {
        let key = try Webhook.secrets(fromFileText: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n")
        let header = WebhookSignature.header(
            secrets: key,
            id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
            timestamp: 1_614_265_330,
            body: #"{"test": 2432232314}"#
        )
        #expect(header == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
        let two = try Webhook.secrets(fromFileText: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n\(Self.secret)\n")
        #expect(
            WebhookSignature.header(secrets: two, id: "a", timestamp: 1, body: "{}").split(separator: " ").count == 2
        )
        for bad in [
            "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_c2hvcnQ=", "whsec_!!", "",
            "\(Self.secret)\n\(Self.secret)\n\(Self.secret)",
        ] {
            #expect(throws: WebhookError.self, "\(bad)") { try Webhook.secrets(fromFileText: bad) }
        }
        for good in [
            "https://app.example.com/hooks", "http://127.0.0.1:8080/x", "http://localhost/x", "http://[::1]:9/x",
        ] {
            #expect(throws: Never.self, "\(good)") { _ = try Webhook.endpoint(good) }
        }
        for bad in ["http://app.example.com/hooks", "ftp://127.0.0.1/x", "/relative", "https://"] {
            #expect(throws: WebhookError.self, "\(bad)") { _ = try Webhook.endpoint(bad) }
        }
    }

    @Test("Retries back off exponentially with jitter, up to the cap")
    func backoff() {
        var settings = WebhookSettings(endpoints: [], secrets: [])
        settings.retryDelayMin = .seconds(2)
        settings.retryDelayMax = .seconds(60)
        for (attempts, full) in [(1, 2.0), (2, 4.0), (3, 8.0), (5, 32.0), (6, 60.0), (40, 60.0)] {
            let delay = EventDeliverer.retryDelay(afterAttempts: attempts, settings: settings).timeInterval
            #expect(delay >= full / 2 && delay <= full, "after \(attempts): \(delay) s")
        }
    }

    static let secret = "whsec_" + Data(repeating: 1, count: 32).base64EncodedString()
}

/// JSON text as a dictionary.
enum JSONValueReader {
    static func object(_ text: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] ?? [:]
    }
}
