import Foundation
import FoyerAPI
import FoyerClient
import FoyerStackProcesses
import FoyerStorage
import FoyerTestSupport
import SQLKit
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The app's merge and delete hooks, called by the real gateway and cleanup: examples/app-hooks/app.py (the example
/// an app developer starts from, moving rows in its own SQLite file), and Tests/http/webhook_receiver.py (which
/// checks each call's Standard Webhooks signature and refuses, or holds its answer, on request).
@Suite("The app's merge and delete hooks (real executables)")
struct AppHookTests {
    @Test(
        "the stories end to end with the example app: 20 transactions counted by the app, link, merge, delete",
        arguments: TestEngine.allCases
    )
    func exampleApp(engine: TestEngine) async throws {
        let email = uniqueEmail("hooks")
        let secret = WebhookReceiver.newSecret()
        let port = try LoopbackPorts.reserve(1)[0]
        var options = Self.options(engine, port: port, secret: secret)
        options.gatewayHTTP = true
        options.environment = [.guestQuota: ["FOYER_PLANS_FILE": ExampleApp.repository("examples/plans.json")]]
        try await withRunningStack(options) { stack in
            try await ExampleApp.with(secret: secret, port: port, foyer: stack.httpBaseURL) { app in
                let account = try await stack.withClient { client in
                    // Given a guest whose app counts its transactions in Foyer (limit 20 for a guest)
                    let guest = try await client.signInAsGuest()
                    for index in 1...20 {
                        #expect(try await app.transaction("a-\(index)", token: client.accessToken()).status == 201)
                    }
                    // When it makes a 21st, the app answers Foyer's refusal
                    let refused = try await app.transaction("a-21", token: client.accessToken())
                    #expect(refused.status == 403 && refused.body["code"] as? String == "quota-exceeded")
                    #expect(refused.body["limit"] as? Int == 20)

                    // When it signs up, it keeps its uid, its rows and its 20 counted, under the member's limit
                    _ = try await client.link(email: email, password: password)
                    let counted = try await client.quota().counters.first { $0.counter == "transactions" }
                    #expect(counted?.used == 20 && counted?.limit == 10_000)
                    #expect(try await app.transaction("a-21", token: client.accessToken()).status == 201)
                    #expect(try await app.count(uid: guest.uid) == 21)
                    return guest.uid
                }
                try await stack.withClient { client in
                    // Given another guest with three transactions of its own in the app's database
                    let guest = try await client.signInAsGuest()
                    for index in 1...3 {
                        #expect(try await app.transaction("b-\(index)", token: client.accessToken()).status == 201)
                    }

                    // When it signs in to the account with its password and merges
                    let result = try await client.link(email: email, password: password, onConflict: .merge)

                    // Then its rows and its count are the account's by the time the merge answers; it is gone
                    guard case .merged(let session, _) = result else {
                        Issue.record("expected a merge, got \(result)")
                        return
                    }
                    #expect(session.uid == account)
                    #expect(try await app.count(uid: guest.uid) == 0)
                    #expect(try await app.count(uid: account) == 24)
                    #expect(try await client.quota().counters.first { $0.counter == "transactions" }?.used == 24)
                    #expect(try await stack.databases.state(of: guest.uid) == nil)

                    // When the account deletes itself, its rows are gone by the time the deletion answers
                    _ = try await client.deleteAccount()
                    #expect(try await app.count(uid: account) == 0)
                    #expect(try await stack.databases.state(of: account) == nil)
                }
            }
        }
    }

    @Test(
        "a refusing or slow app leaves the merge in progress (binary and HTTP); a retry or cleanup finishes it",
        arguments: TestEngine.allCases
    )
    func refusedThenRecovered(engine: TestEngine) async throws {
        let email = uniqueEmail("hooks-refused")
        let secret = WebhookReceiver.newSecret()
        try await WebhookReceiver.with(secret: secret) { receiver, port in
            var options = Self.options(engine, port: port, secret: secret)
            options.gatewayHTTP = true
            try await withRunningStack(options) { stack in
                let account = try await stack.withClient { client in
                    _ = try await client.signInAsGuest()
                    _ = try await client.link(email: email, password: password)
                    return try await client.me().user.uid
                }
                // Given an app that answers 503
                try await receiver.answer(status: 503)
                try await stack.withClient { client in
                    let guest = try await client.signInAsGuest()
                    try await client.put("notes", "n1", "the guest's")
                    let operation = OperationID.make()

                    // When the guest merges into the account, it hears "in progress", and nothing is lost
                    await #expect(throws: FoyerError.operationInProgress) {
                        try await client.link(
                            email: email,
                            password: password,
                            onConflict: .merge,
                            operationID: operation
                        )
                    }
                    #expect(try await stack.databases.state(of: guest.uid) == "merging")
                    let refused = try await receiver.wait(attempts: 1)
                    #expect(refused.events.isEmpty && refused.badSignatures == 0)

                    // When the app is back and the client asks again with the same operation
                    try await receiver.answer(status: 200)
                    let result = try await client.link(
                        email: email,
                        password: password,
                        onConflict: .merge,
                        operationID: operation
                    )

                    // Then the merge finishes: the app heard the guest, the account, the operation and the policy
                    guard case .merged(let session, let report) = result else {
                        Issue.record("expected a merge, got \(result)")
                        return
                    }
                    #expect(session.uid == account && report.moved == 1)
                    #expect(try await stack.databases.state(of: guest.uid) == nil)
                    let call = try #require(try await receiver.wait(events: 1).events.first)
                    #expect(call.type == "user.merging" && call.id.hasPrefix("hook_"))
                    #expect(call.data["guestUid"] as? String == guest.uid)
                    #expect(call.data["targetUid"] as? String == account)
                    #expect(call.data["policy"] as? String == "keep-account")
                }

                // Given an app that takes the delete hook's call and holds its answer past the hook's timeout
                try await receiver.hold()
                let guest = try await stack.withClient { try await $0.signInAsGuest() }
                let records = try await stack.databases.deletionRecordCount()

                // When the guest signs out over HTTP: 202, with when to ask again
                let (status, headers, body) = try await Self.httpSignOut(stack, token: guest.accessToken)
                #expect(status == 202)
                #expect(headers["Retry-After"] == "5")
                #expect(body["code"] as? String == "operation-in-progress")
                #expect(try await stack.databases.state(of: guest.uid) == "deleting")
                // ...and no deletion record says it is gone while the app holds its rows
                #expect(try await stack.databases.deletionRecordCount() == records)

                // Then once the app answers, cleanup's recovery finishes the deletion
                try await receiver.release()
                let report = try await stack.sweep()
                #expect(report.stuckFinished == 1)
                #expect(try await stack.databases.state(of: guest.uid) == nil)
                #expect(try await stack.databases.deletionRecordCount() == records + 1)
                let deleting = try await receiver.wait(events: 2).events.filter { $0.type == "user.deleting" }
                #expect(deleting.first?.data["uid"] as? String == guest.uid)
                #expect(deleting.first?.data["reason"] as? String == "user-request")
            }
        }
    }

    @Test(
        "the gateway, then cleanup, killed (SIGKILL) while the app holds the hook's answer: the merge finishes",
        arguments: TestEngine.allCases
    )
    func killedMidHook(engine: TestEngine) async throws {
        let email = uniqueEmail("hooks-killed")
        let secret = WebhookReceiver.newSecret()
        try await WebhookReceiver.with(secret: secret) { receiver, port in
            var options = Self.options(engine, port: port, secret: secret)
            options.prepare = Self.prepare(port: port, timeoutSeconds: 20)
            try await withRunningStack(options) { stack in
                let account = try await stack.withClient { client in
                    _ = try await client.signInAsGuest()
                    _ = try await client.link(email: email, password: password)
                    return try await client.me().user.uid
                }
                let guest = try await stack.withClient { client in
                    let guest = try await client.signInAsGuest()
                    try await client.put("notes", "n1", "the guest's")
                    return guest
                }

                // Given a merge whose hook call the app holds
                try await receiver.hold()
                let merge = Task {
                    try await stack.withClient(session: guest) { client in
                        try await client.link(email: email, password: password, onConflict: .merge)
                    }
                }
                _ = try await receiver.wait(held: 1)

                // When the gateway is killed before the app answers, and started again
                await stack.processes.kill(.gateway)
                #expect(await (try? merge.value) == nil)
                try await stack.processes.restart(.gateway)
                #expect(try await stack.databases.state(of: guest.uid) == "merging")

                // ...and cleanup, recovering it, is killed while the app holds the call again
                let sweep = Task { try await stack.sweep() }
                _ = try await receiver.wait(held: 2)
                await stack.processes.kill(.cleanup)
                _ = await (try? sweep.value)
                try await receiver.release()
                try await stack.processes.restart(.cleanup)

                // Then the first sweep after the dead process's claim on the guest lapsed (30 s) finishes the
                // merge: the account has the guest's document, the guest is gone
                try stack.setClockOffset(seconds: RunningStack.offset(stack.clockFile) + 31)
                let report = try await stack.sweep()
                #expect(report.stuckFinished == 1)
                #expect(try await stack.databases.state(of: guest.uid) == nil)
                let signedIn = try await stack.withClient { client in
                    _ = try await client.signIn(email: email, password: password)
                    return try await client.listAll("notes")
                }
                #expect(signedIn.map(\.key) == ["n1"])
                #expect(try await stack.databases.state(of: account) == "active")
            }
        }
    }

    @Test("idle guests deleted by cleanup wait on the delete hook: none is finished or recorded before the app answers")
    func idleGuestsWaitOnTheApp() async throws {
        let secret = WebhookReceiver.newSecret()
        try await WebhookReceiver.with(secret: secret) { receiver, port in
            try await withRunningStack(Self.options(.sqlite, port: port, secret: secret)) { stack in
                // Given two guests idle past the TTL and an app that answers 503
                var guests: [String] = []
                for _ in 0..<2 { guests.append(try await stack.withClient { try await $0.signInAsGuest().uid }) }
                try stack.setClockOffset(seconds: 31 * 86_400)
                try await receiver.answer(status: 503)
                let records = try await stack.databases.deletionRecordCount()

                // When cleanup sweeps, its batch deletion calls the hook for each and waits
                let refused = try await stack.sweep()
                #expect(refused.expiredGuests == 0)
                for guest in guests { #expect(try await stack.databases.state(of: guest) == "deleting") }
                #expect(try await stack.databases.deletionRecordCount() == records)
                #expect(try await receiver.wait(attempts: 2).attempts >= 2)

                // Then once the app answers, the next sweep's recovery finishes both, and records them
                try await receiver.answer(status: 200)
                let recovered = try await stack.sweep()
                #expect(recovered.stuckFinished == 2, "\(recovered)")
                for guest in guests { #expect(try await stack.databases.state(of: guest) == nil) }
                #expect(try await stack.databases.deletionRecordCount() == records + 2)
                let calls = try await receiver.wait(events: 2).events
                #expect(Set(calls.map { $0.data["uid"] as? String ?? "" }) == Set(guests))
                #expect(calls.allSatisfy { $0.type == "user.deleting" && $0.data["reason"] as? String == "ttl" })
            }
        }
    }

    @Test("cleanup renews its claim on an account while the app's hook takes its time")
    func claimRenewedWhileWaiting() async throws {
        let secret = WebhookReceiver.newSecret()
        try await WebhookReceiver.with(secret: secret) { receiver, port in
            var options = Self.options(.sqlite, port: port, secret: secret)
            options.prepare = Self.prepare(port: port, timeoutSeconds: 20)
            options.environment = [.cleanup: ["FOYER_CLEANUP_CLAIM_SECONDS": "3"]]
            try await withRunningStack(options) { stack in
                // Given an idle guest, and an app that holds the delete hook's answer
                let guest = try await stack.withClient { try await $0.signInAsGuest().uid }
                try stack.setClockOffset(seconds: 31 * 86_400)
                try await receiver.hold()

                // When cleanup's sweep waits on the app for longer than the claim lifetime (3 s)
                let sweep = Task { try await stack.sweep() }
                _ = try await receiver.wait(held: 1)
                let first = try await Self.newestClaim(stack)
                try await Task.sleep(for: .seconds(2.5))

                // Then its claim was renewed meanwhile (every second), so no other replica takes the guest over
                #expect(try await Self.newestClaim(stack) > first)
                try await receiver.release()
                #expect(try await sweep.value.expiredGuests == 1)
                #expect(try await stack.databases.state(of: guest) == nil)
                #expect(try await stack.databases.claimCount() == 0)
            }
        }
    }

    /// The newest claim time in cleanup's database (µs).
    static func newestClaim(_ stack: RunningStack) async throws -> Int64 {
        try await stack.databases.cleanup.withConnection { sql in
            try await sql.raw("SELECT MAX(claimed_at) AS t FROM cleanup_claims").first()?
                .decode(column: "t", as: Int64?.self) ?? 0
        }
    }

    // MARK: Helpers

    /// A stack whose gateway and cleanup call the hooks on `port` (`/merge`, `/delete`) signed with `secret`.
    static func options(_ engine: TestEngine, port: Int, secret: String) -> RunningStackOptions {
        var options = RunningStackOptions(engine: engine)
        options.files = ["hook-secret": Array("\(secret)\n".utf8)]
        options.prepare = prepare(port: port, timeoutSeconds: 1)
        return options
    }

    static func prepare(
        port: Int,
        timeoutSeconds: Int
    ) -> @Sendable (URL) async throws -> [StackService: [String: String]] {
        { directory in
            let hooks = [
                "FOYER_MERGE_HOOK_URL": "http://127.0.0.1:\(port)/foyer/merge",
                "FOYER_DELETE_HOOK_URL": "http://127.0.0.1:\(port)/foyer/delete",
                "FOYER_HOOK_SECRET_FILE": directory.appendingPathComponent("hook-secret").path,
                "FOYER_HOOK_TIMEOUT_SECONDS": "\(timeoutSeconds)",
            ]
            return [.gateway: hooks, .cleanup: hooks]
        }
    }

    /// `POST /v1/sessions/sign-out` (a guest's sign-out) over the gateway's HTTP API: status, headers, JSON body.
    static func httpSignOut(
        _ stack: RunningStack,
        token: String
    ) async throws -> (Int, [String: String], [String: Any]) {
        var request = URLRequest(url: try #require(URL(string: stack.httpBaseURL + "/v1/sessions/sign-out")))
        request.httpMethod = "POST"
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue(OperationID.make(), forHTTPHeaderField: "Idempotency-Key")
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields { headers["\(name)"] = "\(value)" }
        let body = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return (http.statusCode, headers, body)
    }
}

/// examples/app-hooks/app.py as a child process, and its database.
struct ExampleApp: Sendable {
    let port: Int
    let database: FoyerDatabase

    static func repository(_ path: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(path).path
    }

    /// Runs `body` with the example app listening on `port`, verifying hooks with `secret` and counting in the
    /// gateway's HTTP API at `foyer`; stops it afterwards.
    static func with(secret: String, port: Int, foyer: String, _ body: (ExampleApp) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("foyer-example-app-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("app.sqlite").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", repository("examples/app-hooks/app.py"), "--database", path, "--port", "\(port)",
            "--foyer", foyer,
        ]
        process.environment = ProcessInfo.processInfo.environment.merging(["FOYER_HOOK_SECRET": secret]) { $1 }
        try process.run()
        defer {
            // SIGKILL: the child inherits the test process's blocked signals, SIGTERM among them.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        let deadline = Date().addingTimeInterval(20)
        while !LoopbackPorts.accepts(port) {
            guard Date() < deadline, process.isRunning else { throw ExampleAppError() }
            try await Task.sleep(for: .milliseconds(50))
        }
        let database = try await FoyerDatabase.open(
            DatabaseConfiguration(engine: .sqlite(path: path)),
            logger: TestLogging.logger("foyer.test.example-app")
        )
        do {
            try await body(ExampleApp(port: port, database: database))
            try await database.close()
        } catch {
            try? await database.close()
            throw error
        }
    }

    /// `POST /transactions` to the app, as the app's client would: the status and the JSON answer.
    func transaction(_ id: String, token: String) async throws -> (status: Int, body: [String: Any]) {
        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(port)/transactions")))
        request.httpMethod = "POST"
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: ["id": id])
        let (data, response) = try await URLSession.shared.data(for: request)
        let body = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return (try #require(response as? HTTPURLResponse).statusCode, body)
    }

    func count(uid: String) async throws -> Int {
        try await database.withConnection { sql in
            try await sql.raw("SELECT COUNT(*) AS n FROM transactions WHERE uid = \(bind: uid)").first()?
                .decode(column: "n", as: Int.self) ?? 0
        }
    }
}

struct ExampleAppError: Error, CustomStringConvertible {
    var description: String { "examples/app-hooks/app.py did not start listening" }
}
