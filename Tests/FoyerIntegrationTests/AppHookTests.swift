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
        "the app's rows are moved before a merge answers and deleted before a deletion answers (the example app)",
        arguments: TestEngine.allCases
    )
    func exampleApp(engine: TestEngine) async throws {
        let email = uniqueEmail("hooks")
        let secret = WebhookReceiver.newSecret()
        try await ExampleApp.with(secret: secret) { app in
            try await withRunningStack(Self.options(engine, port: app.port, secret: secret)) { stack in
                // Given an account, and a guest whose three transactions are in the app's database
                let account = try await stack.withClient { client in
                    let guest = try await client.signInAsGuest()
                    _ = try await client.link(email: email, password: password)
                    return guest.uid
                }
                try await app.insert(uid: account, count: 1)
                try await stack.withClient { client in
                    let guest = try await client.signInAsGuest()
                    try await app.insert(uid: guest.uid, count: 3)

                    // When the guest signs in to the account with its password and merges
                    let result = try await client.link(email: email, password: password, onConflict: .merge)

                    // Then its rows are the account's by the time the merge answers, and the guest is gone
                    guard case .merged(let session, _) = result else {
                        Issue.record("expected a merge, got \(result)")
                        return
                    }
                    #expect(session.uid == account)
                    #expect(try await app.count(uid: guest.uid) == 0)
                    #expect(try await app.count(uid: account) == 4)
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

                // When the guest signs out over HTTP: 202, with when to ask again
                let (status, headers, body) = try await Self.httpSignOut(stack, token: guest.accessToken)
                #expect(status == 202)
                #expect(headers["Retry-After"] == "5")
                #expect(body["code"] as? String == "operation-in-progress")
                #expect(try await stack.databases.state(of: guest.uid) == "deleting")

                // Then once the app answers, cleanup's recovery finishes the deletion
                try await receiver.release()
                let report = try await stack.sweep()
                #expect(report.stuckFinished == 1)
                #expect(try await stack.databases.state(of: guest.uid) == nil)
                let deleting = try await receiver.wait(events: 2).events.filter { $0.type == "user.deleting" }
                #expect(deleting.first?.data["uid"] as? String == guest.uid)
                #expect(deleting.first?.data["reason"] as? String == "user-request")
            }
        }
    }

    @Test("the gateway, then cleanup, killed (SIGKILL) while the app holds the hook's answer: the merge finishes")
    func killedMidHook() async throws {
        let email = uniqueEmail("hooks-killed")
        let secret = WebhookReceiver.newSecret()
        try await WebhookReceiver.with(secret: secret) { receiver, port in
            var options = Self.options(.sqlite, port: port, secret: secret)
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

                // Then the first sweep after the dead process's claim on the guest expired (300 s) finishes the
                // merge: the account has the guest's document, the guest is gone
                try stack.setClockOffset(seconds: RunningStack.offset(stack.clockFile) + 301)
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

    /// Runs `body` with the example app listening on a free port, verifying with `secret`; stops it afterwards.
    static func with(secret: String, _ body: (ExampleApp) async throws -> Void) async throws {
        let repository = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("foyer-example-app-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("app.sqlite").path
        let port = try LoopbackPorts.reserve(1)[0]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", repository.appendingPathComponent("examples/app-hooks/app.py").path,
            "--database", path, "--port", "\(port)",
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

    /// Adds `count` transactions of `uid`, as the app would when its user makes them.
    func insert(uid: String, count: Int) async throws {
        try await database.transaction { sql in
            for amount in 0..<count {
                try await sql.raw("INSERT INTO transactions (uid, amount) VALUES (\(bind: uid), \(bind: amount))").run()
            }
        }
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
