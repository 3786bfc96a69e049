import Foundation
import FoyerAPI
import FoyerClient
import FoyerStackProcesses
import FoyerStorage
import FoyerTestSupport
import SQLKit
import Testing

/// Identity's events, delivered by the real executables to an app's endpoint: Tests/http/webhook_receiver.py, which
/// checks every delivery's Standard Webhooks signature with Python's hmac (no Foyer code) and can answer 503, or take
/// deliveries and hold their answers, on request.
@Suite("Events to the app's backend, as signed webhooks (real executables)")
struct WebhookTests {
    @Test(
        "a journey (guest, link, merge, sign-out, delete) delivers its events, signed, in order per uid, without emails",
        arguments: TestEngine.allCases
    )
    func journeyEvents(engine: TestEngine) async throws {
        let email = uniqueEmail("events")
        let secret = WebhookReceiver.newSecret()
        let (events, uids) = try await WebhookReceiver.with(secret: secret) { receiver, port in
            // Given a stack whose identity delivers events to the receiver
            try await withRunningStack(Self.options(engine, port: port, secret: secret)) { stack in
                // When a guest writes and links a password, a second guest writes and merges into it, a third guest
                // signs out, and the account deletes itself
                let account = try await stack.withClient { client in
                    let guest = try await client.signInAsGuest()
                    try await client.put("notes", "n1", "mine")
                    _ = try await client.link(email: email, password: password)
                    return guest.uid
                }
                let merged = try await stack.withClient { client in
                    let guest = try await client.signInAsGuest()
                    try await client.put("notes", "n2", "the guest's")
                    _ = try await client.link(email: email, password: password, onConflict: .merge)
                    return guest.uid
                }
                let signedOut = try await stack.withClient { client in
                    let guest = try await client.signInAsGuest()
                    #expect(try await client.signOut())
                    return guest.uid
                }
                try await stack.withClient { client in
                    _ = try await client.signIn(email: email, password: password)
                    _ = try await client.deleteAccount()
                }
                // Then the receiver gets eight events, each verified
                let received = try await receiver.wait(events: 8)
                #expect(received.badSignatures == 0)
                return (received.events, (account, merged, signedOut))
            }
        }

        let byUID = Dictionary(grouping: WebhookReceiver.firstDeliveries(events), by: \.uid)
        let account = try #require(byUID[uids.0])
        #expect(account.map(\.type) == ["user.created", "user.linked", "plan.changed", "user.deleted"])
        #expect(account.map(\.sequence) == [1, 2, 3, 4])
        #expect(account[0].data["isAnonymous"] as? Bool == true && account[0].data["method"] as? String == "guest")
        #expect(account[0].data["plan"] as? String == "guest")
        #expect(account[1].data["credential"] as? String == "password")
        #expect(account[2].data["from"] as? String == "guest" && account[2].data["to"] as? String == "member")
        #expect(account[3].data["reason"] as? String == "user-request")

        let merged = try #require(byUID[uids.1])
        #expect(merged.map(\.type) == ["user.created", "user.merged"])
        #expect(merged[1].data["from"] as? String == uids.1 && merged[1].data["to"] as? String == uids.0)
        let report = try #require(merged[1].data["report"] as? [String: Any])
        #expect(report["moved"] as? Int == 1 && report["conflicts"] as? Int == 0)

        let signedOut = try #require(byUID[uids.2])
        #expect(signedOut.map(\.type) == ["user.created", "user.deleted"])
        #expect(signedOut[1].data["reason"] as? String == "user-request")

        // ...with ids that are unique, RFC 3339 times, and never the address
        #expect(Set(events.map(\.id)).count == 8)
        for event in events {
            #expect(event.id.hasPrefix("evt_") && event.body["id"] as? String == event.id)
            #expect((event.body["timestamp"] as? String).flatMap { try? Date($0, strategy: .iso8601) } != nil)
            #expect(!event.raw.contains(email))
        }
    }

    @Test(
        "identity killed (SIGKILL) mid-batch loses no event: every one arrives again, with the same id and body",
        arguments: TestEngine.allCases
    )
    func killedMidBatch(engine: TestEngine) async throws {
        let secret = WebhookReceiver.newSecret()
        try await WebhookReceiver.with(secret: secret) { receiver, port in
            try await withRunningStack(Self.options(engine, port: port, secret: secret)) { stack in
                // Given a receiver that takes deliveries but holds its answers, and six guests whose events are in
                // flight
                try await receiver.hold()
                var guests: [SessionTokens] = []
                for _ in 0..<6 { guests.append(try await stack.withClient { try await $0.signInAsGuest() }) }
                let inFlight = try await receiver.wait(events: 6, held: 6)
                #expect(Set(inFlight.events.map(\.uid)) == Set(guests.map(\.uid)))

                // When identity is killed before it hears back, and started again
                await stack.processes.kill(.identity)
                try await receiver.release()
                try await stack.processes.restart(.identity)

                // Then every event is sent again once its lease has passed, with the same id and body
                let again = try await receiver.wait(attempts: inFlight.attempts + 6)
                for (id, copies) in Dictionary(grouping: again.events, by: \.id) {
                    #expect(copies.count >= 2, "event \(id) arrived once")
                    #expect(Set(copies.map(\.raw)).count == 1, "event \(id) changed between deliveries")
                }
                #expect(Set(again.events.map(\.uid)) == Set(guests.map(\.uid)))

                // ...and was recorded delivered: a guest's next event (its sign-out) goes only after it
                for guest in guests {
                    #expect(try await stack.withClient(session: guest) { try await $0.signOut() })
                }
                let all = try await receiver.wait(events: 12)
                let deleted = all.events.filter { $0.type == "user.deleted" }
                #expect(Set(deleted.map(\.uid)) == Set(guests.map(\.uid)) && deleted.allSatisfy { $0.sequence == 2 })
            }
        }
    }

    @Test("a receiver that is down gets everything once it is back, in order per uid")
    func receiverDownThenBack() async throws {
        let email = uniqueEmail("events-down")
        let secret = WebhookReceiver.newSecret()
        try await WebhookReceiver.with(secret: secret) { receiver, port in
            try await withRunningStack(Self.options(.sqlite, port: port, secret: secret)) { stack in
                // Given a receiver answering 503, a guest that links and another guest
                try await receiver.answer(status: 503)
                let linked = try await stack.withClient { client in
                    let guest = try await client.signInAsGuest()
                    _ = try await client.link(email: email, password: password)
                    return guest.uid
                }
                let other = try await stack.withClient { try await $0.signInAsGuest().uid }
                let refused = try await receiver.wait(attempts: 6)
                #expect(refused.events.isEmpty && refused.badSignatures == 0)

                // When it is back
                try await receiver.answer(status: 200)

                // Then all four events arrive, the linked guest's in their order
                let received = try await receiver.wait(events: 4)
                let firsts = WebhookReceiver.firstDeliveries(received.events)
                #expect(
                    firsts.filter { $0.uid == linked }.map(\.type) == ["user.created", "user.linked", "plan.changed"]
                )
                #expect(firsts.filter { $0.uid == other }.map(\.type) == ["user.created"])
            }
        }
    }

    @Test(
        "a receiver with another secret refuses every delivery, and the event stays pending; the metrics show the retries and the backlog"
    )
    func wrongSecretIsDetected() async throws {
        let secret = WebhookReceiver.newSecret()
        try await WebhookReceiver.with(secret: WebhookReceiver.newSecret()) { impostor, port in
            var options = Self.options(.sqlite, port: port, secret: secret)
            options.metrics = true
            // Attempts enough that the event is still pending when the backlog is next measured.
            let prepare = options.prepare
            options.prepare = { directory in
                var environment = try await prepare?(directory) ?? [:]
                environment[.identity, default: [:]]["FOYER_WEBHOOK_ATTEMPTS"] = "100"
                return environment
            }
            try await withRunningStack(options) { stack in
                _ = try await stack.withClient { try await $0.signInAsGuest() }
                let received = try await impostor.wait(attempts: 2)
                #expect(received.events.isEmpty && received.badSignatures >= 2)
                #expect(try await Self.states(stack) == ["pending": 1])

                // The backlog gauges are measured every 10 s: scrape until a measurement has seen the event.
                let port = try stack.processes.metricsPort(of: .identity)
                var scrape = try MetricsScrape.exchange(port: port)
                for _ in 0..<60 where scrape.sample("foyer_identity_events_pending") != 1 {
                    try await Task.sleep(for: .milliseconds(500))
                    scrape = try MetricsScrape.exchange(port: port)
                }
                #expect(scrape.sample("foyer_identity_events_pending") == 1)
                #expect(scrape.sample("foyer_identity_events_oldest_pending_seconds") ?? -1 >= 0)
                #expect(scrape.sample("foyer_identity_webhook_attempts_total", #"outcome="retrying""#) ?? 0 >= 2)
                #expect(scrape.sample("foyer_identity_webhook_attempts_total", #"outcome="delivered""#) == nil)
            }
        }
    }

    @Test("foyer admin: events lists a failed event, event shows why, replay-event sends it again with its id")
    func operatorsReplay() async throws {
        let secret = WebhookReceiver.newSecret()
        let email = uniqueEmail("events-replay")
        try await WebhookReceiver.with(secret: secret) { receiver, port in
            var options = Self.options(.sqlite, port: port, secret: secret)
            options.gatewayAdmin = true
            options.environment[.identity] = ["FOYER_WEBHOOK_ATTEMPTS": "2"]
            try await withRunningStack(options) { stack in
                // Given a guest whose user.created was refused twice, so it failed, and who then linked: its
                // user.linked goes out only once user.created is no longer pending, so a third attempt means the
                // failure is recorded (and that a failed event does not hold the uid's later ones back)
                try await receiver.answer(status: 503)
                let uid = try await stack.withClient { client in
                    let guest = try await client.signInAsGuest()
                    _ = try await receiver.wait(attempts: 2)
                    _ = try await client.link(email: email, password: password)
                    return guest.uid
                }
                _ = try await receiver.wait(attempts: 3)
                let key = try await stack.bootstrapAdminKey()
                func admin(_ arguments: String...) async throws -> [String: Any] {
                    let output = try await stack.foyer(
                        ["admin"] + arguments + ["--admin-url", stack.adminBaseURL],
                        environment: ["FOYER_ADMIN_KEY": key]
                    )
                    let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
                    return try #require(object)
                }
                let listed = try await admin("events", "--uid", uid, "--state", "failed")["events"] as? [[String: Any]]
                let failed = try #require(listed?.first { $0["type"] as? String == "user.created" })
                let id = try #require(failed["id"] as? String)
                #expect(failed["attempts"] as? Int == 2 && failed["sequence"] as? Int == 1)

                // When an operator looks at it and replays it once the endpoint is back
                let shown = try await admin("event", id)
                #expect(shown["state"] as? String == "failed")
                #expect((shown["lastError"] as? String)?.contains("503") == true, "\(shown)")
                #expect((shown["payload"] as? [String: Any])?["uid"] as? String == uid)
                try await receiver.answer(status: 200)
                let replayed = try await admin("replay-event", id)
                #expect(replayed["state"] as? String == "pending" && replayed["attempts"] as? Int == 0)

                // Then the app gets it, with the same id, and the audit log names the replay
                let received = try await receiver.wait(ids: [id])
                #expect(received.events.contains { $0.id == id && $0.type == "user.created" })
                let audit = try await admin("audit", "--limit", "20")["actions"] as? [[String: Any]] ?? []
                #expect(audit.contains { $0["action"] as? String == "event.replay" && $0["target"] as? String == id })
            }
        }
    }

    @Test("identity refuses to start with an http endpoint off loopback, no secret file, or a secret not whsec_")
    func badSettingsStopTheStart() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("foyer-wh-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let good = directory.appendingPathComponent("good-secret")
        try Data("\(WebhookReceiver.newSecret())\n".utf8).write(to: good)
        let bad = directory.appendingPathComponent("bad-secret")
        try Data("not-a-webhook-secret\n".utf8).write(to: bad)
        for (environment, message) in [
            (
                ["FOYER_WEBHOOK_URLS": "http://app.example.com/x", "FOYER_WEBHOOK_SECRET_FILE": good.path],
                "must be https"
            ),
            (["FOYER_WEBHOOK_URLS": "https://app.example.com/x"], "needs --webhook-secret-file"),
            (["FOYER_WEBHOOK_URLS": "https://app.example.com/x", "FOYER_WEBHOOK_SECRET_FILE": bad.path], "whsec_"),
        ] {
            let process = Process()
            process.executableURL = try StackProcesses.locateExecutables().appendingPathComponent("identity")
            // Past the checks, writing the JWKS into a missing directory ends the run instead of serving.
            process.arguments = ["--write-jwks", directory.appendingPathComponent("missing/jwks.json").path]
            process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("FOYER_") }
                .merging(["FOYER_DATA_DIR": directory.path, "FOYER_HOST": "127.0.0.1", "FOYER_PORT": "0"]) { $1 }
                .merging(environment) { $1 }
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus != 0)
            #expect(output.contains(message), "\(environment): \(output)")
        }
    }

    /// A stack whose identity sends events to the receiver on `port`, retrying fast, with a 3-second lease.
    static func options(_ engine: TestEngine, port: Int, secret: String) -> RunningStackOptions {
        var options = RunningStackOptions(engine: engine)
        options.files = ["webhook-secret": Array("\(secret)\n".utf8)]
        options.prepare = { directory in
            [
                .identity: [
                    "FOYER_WEBHOOK_URLS": "http://127.0.0.1:\(port)/foyer-events",
                    "FOYER_WEBHOOK_SECRET_FILE": directory.appendingPathComponent("webhook-secret").path,
                    "FOYER_WEBHOOK_POLL_MILLISECONDS": "50",
                    "FOYER_WEBHOOK_RETRY_MIN_MILLISECONDS": "100",
                    "FOYER_WEBHOOK_RETRY_MAX_SECONDS": "1",
                    "FOYER_WEBHOOK_TIMEOUT_SECONDS": "2",
                    "FOYER_WEBHOOK_LEASE_SECONDS": "3",
                ]
            ]
        }
        return options
    }

    /// How many of identity's events are in each state.
    static func states(_ stack: RunningStack) async throws -> [String: Int] {
        try await stack.databases.identity.withConnection { sql in
            try await sql.raw("SELECT state, COUNT(*) AS n FROM identity_events GROUP BY state").all().reduce(
                into: [:]
            ) { counts, row in
                counts[try row.decode(column: "state", as: String.self)] = Int(
                    try row.decode(column: "n", as: Int64.self)
                )
            }
        }
    }
}

/// webhook_receiver.py as a coprocess.
struct WebhookReceiver: Sendable {
    /// One accepted delivery.
    struct Delivery: @unchecked Sendable {  // immutable after decoding
        var id: String
        var raw: String
        var body: [String: Any]
        var uid: String { body["uid"] as? String ?? "" }
        var type: String { body["type"] as? String ?? "" }
        var sequence: Int { body["sequence"] as? Int ?? 0 }
        var data: [String: Any] { body["data"] as? [String: Any] ?? [:] }
    }

    struct Received: Sendable {
        var events: [Delivery]
        var attempts: Int
        var badSignatures: Int
    }

    let python: PythonCoprocess

    init() {
        let repository = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        python = PythonCoprocess(
            repository.appendingPathComponent("Tests/http/webhook_receiver.py"),
            arguments: [],
            timeout: .seconds(90)
        )
    }

    /// Runs `body` with a receiver verifying with `secret` and its port, stopping the receiver afterwards.
    static func with<T: Sendable>(
        secret: String,
        _ body: (WebhookReceiver, Int) async throws -> T
    ) async throws -> T {
        let receiver = WebhookReceiver()
        let port = try await receiver.start(secret: secret)
        do {
            let result = try await body(receiver, port)
            try await receiver.stop()
            return result
        } catch {
            try? await receiver.stop()
            throw error
        }
    }

    /// A fresh `whsec_` secret.
    static func newSecret() -> String {
        "whsec_" + Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
    }

    /// Each event's first delivery, in arrival order.
    static func firstDeliveries(_ deliveries: [Delivery]) -> [Delivery] {
        var seen: Set<String> = []
        return deliveries.filter { seen.insert($0.id).inserted }
    }

    func start(secret: String) async throws -> Int {
        let answer = try await send(["op": "start", "secret": secret])
        return try #require(answer["port"] as? Int)
    }

    func answer(status: Int) async throws { _ = try await send(["op": "status", "status": status]) }
    func hold() async throws { _ = try await send(["op": "hold"]) }
    func release() async throws { _ = try await send(["op": "release"]) }
    func stop() async throws { _ = try await send(["op": "stop"]) }

    /// Waits (up to 45 seconds) for `events` distinct accepted events, among them `ids`, `attempts` deliveries and
    /// `held` held ones.
    func wait(events: Int = 0, ids: [String] = [], attempts: Int = 0, held: Int = 0) async throws -> Received {
        let answer = try await send(["op": "wait", "events": events, "ids": ids, "attempts": attempts, "held": held])
        let deliveries = try (answer["events"] as? [[String: Any]] ?? []).map { item in
            let body = try #require(item["body"] as? [String: Any])
            let raw = String(
                decoding: try JSONSerialization.data(withJSONObject: body, options: .sortedKeys),
                as: UTF8.self
            )
            return Delivery(id: item["id"] as? String ?? "", raw: raw, body: body)
        }
        return Received(
            events: deliveries,
            attempts: answer["attempts"] as? Int ?? 0,
            badSignatures: answer["badSignatures"] as? Int ?? 0
        )
    }

    private func send(_ request: [String: Any]) async throws -> [String: Any] {
        let line = try JSONSerialization.data(withJSONObject: request)
        let answer = try await python.request(line)
        let object = try JSONSerialization.jsonObject(with: answer) as? [String: Any]
        return try #require(object)
    }
}
