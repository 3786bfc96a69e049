import Foundation
import FoyerClient
import FoyerCrypto
import FoyerStackProcesses
import FoyerTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The gateway's admin listener through the real executables: the admin API driven by an outside client and
/// checked against docs/admin-openapi.yaml, `foyer admin` over it, and its refusals.
@Suite("The admin API through the real executables")
struct AdminAPITests {
    private static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private static func options(_ engine: TestEngine) -> RunningStackOptions {
        var options = RunningStackOptions()
        options.engine = engine
        options.gatewayHTTP = true
        options.gatewayAdmin = true
        return options
    }

    @Test(
        "every admin operation, each answer as docs/admin-openapi.yaml says, the audit log naming each action",
        arguments: testedEngines
    )
    func journey(engine: TestEngine) async throws {
        try await withRunningStack(Self.options(engine)) { stack in
            let key = try await stack.bootstrapAdminKey()
            let output = try await PythonScript.run(
                Self.repository.appendingPathComponent("Tests/http/admin_journey.py"),
                arguments: [stack.adminBaseURL, stack.httpBaseURL],
                input: Data((key + "\n").utf8),
                missingPackages: [3: "run `make deps` to install PyYAML and openapi-schema-validator"],
                timeout: .seconds(240)
            )
            let result = try object(output)
            #expect(result["passed"] as? Bool == true)
            // What the script did is in identity's own table too, under the bootstrap key.
            let admin = stack.adminClient(key: key)
            defer { admin.shutdown() }
            let audit = try object(try await admin.call("GET", "/admin/v1/audit?limit=1000"))
            let actions = try #require(audit["actions"] as? [[String: Any]])
            #expect(actions.count >= 15, "\(actions.count) audit entries")
            let names = Set(actions.compactMap { $0["keyName"] as? String })
            #expect(names == ["tests"], "every action was taken with the bootstrap key: \(names)")
        }
    }

    @Test(
        "foyer admin: counts, user by uid and email, users, set-plan, set-roles, revoke-sessions, keys, audit, delete-user"
    )
    func commandLine() async throws {
        try await withRunningStack(Self.options(.sqlite)) { stack in
            let key = try await stack.bootstrapAdminKey()
            let email = "cli-\(UUID().uuidString.prefix(8).lowercased())@example.com"
            let uid = try await stack.withClient { client in
                let session = try await client.signInAsGuest()
                try await client.put("notes", "one", "a note")
                _ = try await client.link(.password(email: email, password: "a long passphrase for the cli"))
                return session.uid
            }
            func admin(_ arguments: String...) async throws -> [String: Any] {
                let output = try await stack.foyer(
                    ["admin"] + arguments + ["--admin-url", stack.adminBaseURL],
                    environment: ["FOYER_ADMIN_KEY": key]
                )
                return try object(Data(output.utf8))
            }
            #expect((try await admin("counts"))["members"] as? Int ?? 0 >= 1)
            let byUID = try await admin("user", uid)
            #expect(byUID["email"] as? String == email && byUID["plan"] as? String == "member", "\(byUID)")
            #expect(try await admin("user", "--email", email.uppercased())["uid"] as? String == uid)
            let members = try await admin("users", "--kind", "members", "--newest", "--limit", "5")
            let listed = (members["users"] as? [[String: Any]] ?? []).compactMap { $0["uid"] as? String }
            #expect(listed.contains(uid), "\(members)")
            #expect(try await admin("set-plan", uid, "guest")["previousPlan"] as? String == "member")
            #expect(
                try await admin("set-roles", uid, "editor", "app:beta")["roles"] as? [String] == ["app:beta", "editor"]
            )
            #expect(try await admin("user", uid)["roles"] as? [String] == ["app:beta", "editor"])
            // The next access token names the plan and roles, so an app's backend can authorise by them.
            let signedIn = try await stack.withClient { client in
                try await client.signIn(email: email, password: "a long passphrase for the cli")
            }
            let claims = try object(try Base64URL.decode(signedIn.accessToken.split(separator: ".")[1]))
            #expect(claims["plan"] as? String == "guest", "\(claims)")
            #expect(claims["roles"] as? [String] == ["app:beta", "editor"], "\(claims)")
            #expect(try await admin("set-roles", uid)["roles"] as? [String] == [])
            #expect(try await admin("revoke-sessions", uid)["revoked"] as? Bool == true)
            #expect(try await admin("user", uid)["liveSessions"] as? Int == 0)

            let created = try await admin("create-key", "--name", "second")
            let second = try #require(created["key"] as? String)
            let keyID = try #require(created["keyID"] as? String)
            #expect((try await admin("keys")["keys"] as? [Any])?.count == 2)
            #expect(try await admin("revoke-key", keyID)["revokedAt"] is String)
            await #expect(throws: FoyerCommandFailure.self) {
                _ = try await stack.foyer(
                    ["admin", "counts", "--admin-url", stack.adminBaseURL],
                    environment: ["FOYER_ADMIN_KEY": second]
                )
            }

            await #expect(throws: FoyerCommandFailure.self, "delete-user without --yes") {
                _ = try await admin("delete-user", uid)
            }
            #expect(try await admin("delete-user", uid, "--yes")["documentsDeleted"] as? Int == 1)
            let failure = await #expect(throws: FoyerCommandFailure.self) { _ = try await admin("user", uid) }
            #expect(failure?.output.contains("user-not-found") == true, "\(String(describing: failure))")
            let audit = try await admin("audit", "--limit", "3")
            let newest = (audit["actions"] as? [[String: Any]])?.first
            #expect(newest?["action"] as? String == "user.view" && newest?["target"] as? String == uid)
            #expect(newest?["outcome"] as? String == "user-not-found", "\(String(describing: newest))")
        }
    }

    @Test(
        "no key, a wrong key or a revoked key: 401 alike; guessing is rate-limited; the console is served locked down"
    )
    func refusals() async throws {
        var options = Self.options(.sqlite)
        // 5 checks at once, then one every 12 s: the guesses below run out of checks long before one is back.
        options.environment[.gateway] = ["FOYER_ADMIN_KEY_CHECKS_PER_MINUTE": "5"]
        try await withRunningStack(options) { stack in
            let key = try await stack.bootstrapAdminKey()
            let base = stack.adminBaseURL
            let missing = try await exchange("GET", base + "/admin/v1/counts")
            #expect(
                missing.status == 401 && missing.code == "unauthenticated"
                    && missing.header("www-authenticate") == "Bearer"
            )
            // The real key is checked once, then vouched for (10 s).
            #expect(try await exchange("GET", base + "/admin/v1/counts", key: key).status == 200)
            var statuses: [Int] = []
            for attempt in 0..<6 {
                let guess =
                    "foyer_admin_\(String(repeating: "0", count: 14))\(attempt + 10)_"
                    + String(repeating: "A", count: 43)
                statuses.append(try await exchange("GET", base + "/admin/v1/counts", key: guess).status)
            }
            // 5 checks from one address (the real key's took one), then 429 until one is back.
            #expect(statuses == [401, 401, 401, 401, 429, 429], "\(statuses)")
            #expect(
                try await exchange("GET", base + "/admin/v1/counts", key: key).status == 200,
                "the operator is not locked out"
            )

            let page = try await exchange("GET", base + "/admin/")
            #expect(page.status == 200 && page.header("content-type")?.hasPrefix("text/html") == true)
            #expect(page.header("content-security-policy")?.contains("script-src 'self'") == true)
            #expect(page.header("cache-control") == "no-cache" && page.header("x-frame-options") == "DENY")
            // The files carry an entity tag: asked again with it, 304 and no body; with another, the file.
            let script = try await exchange("GET", base + "/admin/console.js")
            let tag = try #require(script.header("etag"))
            #expect(script.status == 200 && tag.hasPrefix("\"") && tag.count == 34 && tag != page.header("etag"))
            let unchanged = try await exchange("GET", base + "/admin/console.js", headers: ["If-None-Match": tag])
            #expect(unchanged.status == 304 && unchanged.body.isEmpty && unchanged.header("etag") == tag)
            let weak = try await exchange(
                "GET",
                base + "/admin/console.js",
                headers: ["If-None-Match": "\"x\", W/" + tag]
            )
            #expect(weak.status == 304)
            let other = try await exchange("GET", base + "/admin/console.js", headers: ["If-None-Match": "\"x\""])
            #expect(other.status == 200 && other.body == script.body)
            let counted = try await exchange("GET", base + "/admin/v1/counts", key: key)
            #expect(counted.header("cache-control") == "no-store" && counted.header("etag") == nil)
            #expect(try await exchange("POST", base + "/admin/").status == 405)
            #expect(try await exchange("GET", base + "/v1/me").status == 404, "the client API is not on this port")
            let wrongVerb = try await exchange("PATCH", base + "/admin/v1/counts", key: key)
            #expect(wrongVerb.status == 405 && wrongVerb.header("allow") == "GET")
        }
    }
}

/// The JSON object of `data`.
private func object(_ data: some Sequence<UInt8>) throws -> [String: Any] {
    let bytes = Data(data)
    return try #require(
        try JSONSerialization.jsonObject(with: bytes) as? [String: Any],
        "not a JSON object: \(String(decoding: bytes, as: UTF8.self))"
    )
}

/// One answer of the admin listener, as any HTTP client sees it.
private struct Exchange {
    var status: Int
    var headers: [AnyHashable: Any]
    var body: Data

    func header(_ name: String) -> String? {
        headers.first { ($0.key as? String)?.lowercased() == name }?.value as? String
    }

    /// A problem's `code`.
    var code: String? {
        (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["code"] as? String
    }
}

/// Sends `verb url` (with the admin key as a bearer token when given) and returns the answer, whatever its status.
private func exchange(
    _ verb: String,
    _ url: String,
    key: String? = nil,
    headers: [String: String] = [:]
) async throws -> Exchange {
    var request = URLRequest(url: try #require(URL(string: url)))
    request.httpMethod = verb
    // Every answer is asked of the gateway: URLSession's own cache would answer a revalidation itself.
    request.cachePolicy = .reloadIgnoringLocalCacheData
    if let key { request.setValue("Bearer \(key)", forHTTPHeaderField: "Authorization") }
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    let (body, response) = try await URLSession.shared.data(for: request)
    let http = try #require(response as? HTTPURLResponse)
    return Exchange(status: http.statusCode, headers: http.allHeaderFields, body: body)
}
