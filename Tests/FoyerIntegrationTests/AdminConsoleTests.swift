import Foundation
import FoyerAPI
import FoyerClient
import FoyerJSON
import FoyerTestSupport
import Testing

/// The operators' console (`/admin/` on the gateway's admin listener) in a real headless Chromium, driven a step at a
/// time by Tests/http/admin_console.py while the test checks each step against the admin API: the page shows what
/// the API answers, a change made through the API shows after a search, and the page's buttons act (set roles, revoke
/// an admin key, revoke sessions, delete), each through its confirmation in the page; the keys table pages. One
/// browser for the whole sequence.
@Suite("The operators' console in a real browser")
struct AdminConsoleTests {
    private static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test(
        "key refused, unlock, find, a plan and roles changed by the API, roles, key revocation, revoke and delete by the buttons, keys paged: page and API agree"
    )
    func consoleInChromium() async throws {
        var options = RunningStackOptions()
        options.gatewayAdmin = true
        try await withRunningStack(options) { stack in
            let member = try await makeAccount(stack, keys: ["n1"])
            let key = try await stack.bootstrapAdminKey(name: "console")
            let keyFile = stack.directory.appendingPathComponent("console-admin-key")
            try #require(
                FileManager.default.createFile(
                    atPath: keyFile.path,
                    contents: Data(key.utf8),
                    attributes: [.posixPermissions: 0o600]
                )
            )
            let api = AdminAPI(stack.adminClient(key: key))
            defer { api.client.shutdown() }
            let console = PythonCoprocess(
                Self.repository.appendingPathComponent("Tests/http/admin_console.py"),
                arguments: ["\(stack.adminBaseURL)/admin/", "--key-file", keyFile.path, "--lines"],
                missingPackages: [3: "run `make deps` to install Debian's chromium"],
                timeout: .seconds(120)
            )
            do {
                try await Self.walkThrough(ConsoleSteps(console), api: api, member: member) {
                    try await stack.withClient { client in
                        _ = try await client.startPasswordReset(email: member.email)
                    }
                }
            } catch let failure as PythonScript.Failure {
                throw failure  // the script stopped, and its browser with it
            } catch {
                _ = try? await ConsoleSteps(console).quit()  // closes the browser
                throw error
            }
        }
    }

    /// The sequence, on a member with a live session and one document.
    private static func walkThrough(
        _ page: ConsoleSteps,
        api: AdminAPI,
        member: (uid: String, email: String),
        sendResetEmail: () async throws -> Void
    ) async throws {
        // A key the API refuses: the page says so and keeps no key.
        let refused = try await page.step(["do": "unlock", "key": "foyer_admin_0000000000000000_refused"])
        #expect(refused.keyState == "key refused" && refused.message.hasPrefix("key refused"), "\(refused.message)")
        #expect(refused.keyFieldLength == 0 && refused.counts["members"] == "–")

        let unlocked = try await page.step(["do": "unlock"])
        #expect(unlocked.keyState == "unlocked" && unlocked.keyFieldLength == 0, "\(unlocked.message)")
        let counts: APICounts = try await api.get("/admin/v1/counts")
        #expect(unlocked.counts["members"] == String(counts.members))
        #expect(unlocked.counts["guests"] == String(counts.guests))

        // The user the API answers, as the page shows it.
        let found = try await page.step(["do": "search", "uid": member.uid])
        let user: APIUser = try await api.get("/admin/v1/users/\(member.uid)")
        let shown = try #require(found.user, "\(found.message)")
        #expect(shown.uid == member.uid && shown.kind == "member" && shown.password == "set")
        #expect(shown.state == user.state && shown.email == user.email && shown.email == member.email)
        #expect(shown.plan == user.plan && shown.sessions == String(user.liveSessions) && user.liveSessions > 0)

        // A plan changed through the API shows after a search (by email this time).
        let newPlan = user.plan == "guest" ? "member" : "guest"
        let changed: APIPlan = try await api.send("PUT", "/admin/v1/users/\(member.uid)/plan", ["plan": newPlan])
        #expect(changed.plan == newPlan)
        let searched = try await page.step(["do": "search", "email": member.email])
        #expect(searched.user?.uid == member.uid && searched.user?.plan == newPlan, "\(searched.message)")
        #expect(searched.user?.roles == ["none"], "\(searched.message)")

        // Roles set through the API show after a search, one per line, as the API sorted them.
        let roles: APIRoles = try await api.send(
            "PUT",
            "/admin/v1/users/\(member.uid)/roles",
            roles: ["editor", "app:beta"]
        )
        #expect(roles.roles == ["app:beta", "editor"])
        let withRoles = try await page.step(["do": "search", "uid": member.uid])
        #expect(withRoles.user?.roles == roles.roles, "\(withRoles.message)")

        // Roles set with the button, spaces and commas alike: the API has them sorted, the page shows the same.
        let setByButton = try await page.step(["do": "roles", "roles": "reviewer, app:alpha  editor"])
        #expect(
            setByButton.question?.contains(member.uid) == true && setByButton.question?.contains("app:beta") == true
        )
        let withNewRoles: APIUser = try await api.get("/admin/v1/users/\(member.uid)")
        #expect(withNewRoles.roles == ["app:alpha", "editor", "reviewer"])
        #expect(setByButton.user?.roles == withNewRoles.roles, "\(setByButton.message)")

        // The keys a page at a time: 25 keys are two pages of 20; the Revoke button of one revokes it.
        for index in 0..<24 {
            let _: APIKey = try await api.send("POST", "/admin/v1/keys", ["name": "page-\(index)"])
        }
        let firstPage = try await page.step(["do": "refresh"])
        #expect(firstPage.keys.count == 20 && firstPage.keysPage == "page 1 of 2 (25 keys)", "\(firstPage.keysPage)")
        let secondPage = try await page.step(["do": "keys-page", "to": "next"])
        #expect(secondPage.keys.count == 5 && secondPage.keysPage == "page 2 of 2 (25 keys)")
        #expect(Set(secondPage.keys.map(\.keyID)).isDisjoint(with: firstPage.keys.map(\.keyID)))
        let backAgain = try await page.step(["do": "keys-page", "to": "previous"])
        #expect(backAgain.keys.map(\.keyID) == firstPage.keys.map(\.keyID))
        let target = try #require(backAgain.keys.first { $0.name.hasPrefix("page-") && $0.action == "Revoke" })
        let revokedKey = try await page.step(["do": "revoke-key", "keyID": target.keyID])
        #expect(revokedKey.question?.contains(target.keyID) == true, "\(revokedKey.message)")
        let keysNow: APIKeys = try await api.get("/admin/v1/keys")
        #expect(keysNow.keys.first { $0.keyID == target.keyID }?.revokedAt != nil)
        #expect(keysNow.keys.filter { $0.revokedAt != nil }.count == 1)
        let shownRevoked = try #require(revokedKey.keys.first { $0.keyID == target.keyID })
        #expect(shownRevoked.revoked != "active" && shownRevoked.action.isEmpty, "\(shownRevoked)")
        #expect(revokedKey.audit.contains { $0.action == "admin-key.revoke" && $0.target == target.keyID })

        // Local mode's outbox, on request: the reset email to the member, with its link.
        try await sendResetEmail()
        let outbox = try await page.step(["do": "outbox", "to": member.email])
        let message = try #require(outbox.outbox.first, "\(outbox.message)")
        #expect(message.to == member.email.lowercased() && message.body.contains("token="), "\(message)")
        let looked: APIActions = try await api.get("/admin/v1/audit?limit=5")
        #expect(looked.actions.contains { $0.action == "outbox.list" && $0.outcome == "ok" })

        // Revoke sessions with the button: none is left, and the audit log has the action.
        let revoked = try await page.step(["do": "revoke"])
        #expect(revoked.question?.contains(member.uid) == true)
        #expect(revoked.user?.sessions == "0", "\(revoked.message)")
        let afterRevoke: APIUser = try await api.get("/admin/v1/users/\(member.uid)")
        #expect(afterRevoke.liveSessions == 0)
        let audit: APIActions = try await api.get("/admin/v1/audit?limit=20")
        #expect(
            audit.actions.contains { $0.target == member.uid && $0.action.contains("revoke") && $0.outcome == "ok" }
        )
        #expect(revoked.audit.contains { $0.target == member.uid && $0.action.contains("revoke") })

        // Delete with the button, the uid typed to confirm: the API no longer knows the user.
        let deleted = try await page.step(["do": "delete"])
        #expect(deleted.disabledBeforeTyping == true && deleted.disabledWithWrongUID == true)
        #expect(deleted.user == nil && deleted.message == "deleted \(member.uid) with 1 document", "\(deleted.message)")
        #expect(
            deleted.audit.contains { $0.target == member.uid && $0.action.contains("delete") && $0.outcome == "ok" }
        )
        let countsAfter: APICounts = try await api.get("/admin/v1/counts")
        #expect(deleted.counts["members"] == String(countsAfter.members) && countsAfter.members == counts.members - 1)
        let gone = await foyerFailure { () async throws -> APIUser in
            try await api.get("/admin/v1/users/\(member.uid)")
        }
        #expect(gone?.name.hasSuffix("not-found") == true, "\(String(describing: gone))")

        // The key stayed in the page's memory: no storage, cookie or URL holds it.
        #expect(deleted.kept.localStorage == 0 && deleted.kept.sessionStorage == 0 && deleted.kept.cookie.isEmpty)
        #expect(!deleted.kept.url.contains("foyer_admin"))
        let closing = try await page.quit()
        #expect(closing.pageErrors.isEmpty, "the page logged errors: \(closing.pageErrors)")
    }
}

/// The console's driver (admin_console.py --lines): one step in, what the page showed after it out.
private struct ConsoleSteps {
    let script: PythonCoprocess

    init(_ script: PythonCoprocess) {
        self.script = script
    }

    func step(_ step: [String: String]) async throws -> ConsoleReport {
        let line = try JSONSerialization.data(withJSONObject: step, options: [.sortedKeys])
        return try JSONDecoder().decode(ConsoleReport.self, from: try await script.request(line))
    }

    /// Closes the browser; the answer lists the page's script and console errors.
    func quit() async throws -> ConsoleClosing {
        try JSONDecoder().decode(ConsoleClosing.self, from: try await script.request(Data(#"{"do":"quit"}"#.utf8)))
    }
}

/// What the page showed after a step (the members the test reads).
private struct ConsoleReport: Decodable {
    struct User: Decodable {
        var uid: String
        var kind: String
        var state: String
        var email: String
        var password: String
        var sessions: String
        var plan: String
        var roles: [String]
    }
    struct KeyRow: Decodable {
        var keyID: String
        var name: String
        var revoked: String
        var action: String
    }
    struct AuditRow: Decodable {
        var action: String
        var target: String
        var outcome: String
    }
    struct Kept: Decodable {
        var localStorage: Int
        var sessionStorage: Int
        var cookie: String
        var url: String
    }
    var message: String
    var keyState: String
    var keyFieldLength: Int
    var counts: [String: String]
    var user: User?
    struct OutboxRow: Decodable {
        var to: String
        var subject: String
        var body: String
    }
    var audit: [AuditRow]
    var keys: [KeyRow]
    var keysPage: String
    var outbox: [OutboxRow]
    var kept: Kept
    /// The confirmation the page asked (revoke, plan, roles, revoke-key, delete).
    var question: String?
    /// Delete only: whether the confirm button was disabled before the uid was typed, and with a wrong uid.
    var disabledBeforeTyping: Bool?
    var disabledWithWrongUID: Bool?
}

private struct ConsoleClosing: Decodable {
    var pageErrors: [String]
}

/// The admin API's JSON, as far as the test compares it.
private struct APIUser: Decodable {
    var uid: String
    var state: String
    var email: String?
    var plan: String
    var liveSessions: UInt64
    var roles: [String]?
}

private struct APIKey: Decodable {
    var keyID: String
    var revokedAt: String?
}

private struct APIKeys: Decodable {
    var keys: [APIKey]
}

private struct APICounts: Decodable {
    var guests: UInt64
    var members: UInt64
}

private struct APIPlan: Decodable {
    var plan: String
}

private struct APIRoles: Decodable {
    var roles: [String]
}

private struct APIActions: Decodable {
    struct Action: Decodable {
        var action: String
        var target: String?
        var outcome: String?
    }
    var actions: [Action]
}

/// The admin API through ``FoyerAdminClient``, answers decoded.
private struct AdminAPI {
    let client: FoyerAdminClient

    init(_ client: FoyerAdminClient) {
        self.client = client
    }

    func get<Answer: Decodable>(_ path: String) async throws -> Answer {
        try await send("GET", path)
    }

    func send<Answer: Decodable>(_ verb: String, _ path: String, _ body: [String: String]? = nil) async throws -> Answer
    {
        let members = body?.mapValues(JSONValue.string)
        return try JSONDecoder().decode(Answer.self, from: Data(try await client.call(verb, path, body: members)))
    }

    func send<Answer: Decodable>(_ verb: String, _ path: String, roles: [String]) async throws -> Answer {
        let body: [String: JSONValue] = ["roles": .array(roles.map(JSONValue.string))]
        return try JSONDecoder().decode(Answer.self, from: Data(try await client.call(verb, path, body: body)))
    }
}
