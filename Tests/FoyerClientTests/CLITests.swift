import Foundation
import FoyerAPI
import FoyerClient
import FoyerCrypto
import FoyerTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("The foyer command line")
struct CLITests {
    /// Runs `foyer` expecting success, returning its JSON.
    func ok(
        _ stack: Stack,
        _ arguments: String...,
        session: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    )
        async throws -> [String: Any]
    {
        let result = try await CLI.run(arguments: arguments, stack: stack, session: session)
        #expect(
            result.status == 0,
            "foyer \(arguments.joined(separator: " ")) failed: \(result.stderr)",
            sourceLocation: sourceLocation
        )
        #expect(result.stderr.isEmpty, sourceLocation: sourceLocation)
        return try result.output()
    }

    /// Runs `foyer` expecting failure, returning its error JSON.
    func fails(
        _ stack: Stack,
        _ arguments: String...,
        session: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    )
        async throws -> (status: Int32, error: [String: Any])
    {
        let result = try await CLI.run(arguments: arguments, stack: stack, session: session)
        #expect(
            result.status != 0,
            "foyer \(arguments.joined(separator: " ")) succeeded: \(result.stdout)",
            sourceLocation: sourceLocation
        )
        #expect(result.stdout.isEmpty, sourceLocation: sourceLocation)
        return (result.status, try result.error())
    }

    @Test("guest, put until the quota says no, sign-up, put again, get, list, quota, me, export")
    func guestJourney() async throws {
        try await withStack { stack in
            let session = stack.sessionFile("journey")
            let guest = try await ok(stack, "guest", session: session)
            let uid = try #require(guest["uid"] as? String)
            #expect(guest["isAnonymous"] as? Bool == true)
            #expect(guest["accessToken"] == nil)

            // The session file is private.
            var info = stat()
            #expect(stat(session, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o600)
            // A second guest would abandon the first.
            let refused = try await fails(stack, "guest", session: session)
            #expect(refused.error["error"] as? String == "invalid-input")

            for index in 1...20 {
                _ = try await ok(stack, "put", "notes", "n\(index)", "value \(index)", session: session)
            }
            let denied = try await fails(stack, "put", "notes", "n21", "value 21", session: session)
            #expect(denied.status == 1)
            #expect(denied.error["error"] as? String == "quota-exceeded")
            #expect(denied.error["status"] as? Int == Int(GuestQuotaStatus.quotaExceeded.rawValue))
            #expect(denied.error["counter"] as? String == "documents")
            #expect(denied.error["limit"] as? Int == 20)
            #expect(denied.error["used"] as? Int == 20)
            #expect(denied.error["remaining"] as? Int == 0)
            #expect(denied.error["message"] is String)
            let guestImport = try await ok(stack, "feature", "import", session: session)
            #expect(guestImport["plan"] as? String == "guest" && guestImport["enabled"] as? Bool == false)
            let unknown = try await fails(stack, "feature", "no-such-feature", session: session)
            #expect(unknown.error["error"] as? String == "unknown-feature")

            let email = uniqueEmail()
            let signUp = try await ok(
                stack,
                "sign-up",
                "--email",
                email,
                "--password",
                strongPassword,
                session: session
            )
            #expect(signUp["outcome"] as? String == "linked")
            #expect(signUp["uid"] as? String == uid)
            #expect(signUp["isAnonymous"] as? Bool == false)
            #expect(signUp["guestCreated"] as? Bool == false)

            let put = try await ok(stack, "put", "notes", "n21", "value 21", session: session)
            #expect(put["version"] as? Int == 1)
            let got = try await ok(stack, "get", "notes", "n7", session: session)
            #expect(got["found"] as? Bool == true)
            #expect(got["value"] as? String == "value 7")
            #expect(got["encoding"] as? String == "utf8")
            let missing = try await ok(stack, "get", "notes", "nope", session: session)
            #expect(missing["found"] as? Bool == false)

            let page = try await ok(stack, "list", "notes", "--limit", "15", session: session)
            #expect((page["documents"] as? [Any])?.count == 15)
            let cursor = try #require(page["nextCursor"] as? String)
            let rest = try await ok(stack, "list", "notes", "--limit", "15", "--cursor", cursor, session: session)
            #expect((rest["documents"] as? [Any])?.count == 6)
            #expect(rest["nextCursor"] is NSNull)

            let quota = try await ok(stack, "quota", session: session)
            #expect(quota["plan"] as? String == "member")
            let memberImport = try await ok(stack, "feature", "import", session: session)
            #expect(memberImport["plan"] as? String == "member" && memberImport["enabled"] as? Bool == true)
            let me = try await ok(stack, "me", session: session)
            #expect(me["uid"] as? String == uid)
            #expect(me["email"] as? String == email)
            let export = try await ok(stack, "export", session: session)
            #expect(export["count"] as? Int == 21)

            let deleted = try await ok(stack, "delete", "notes", "n21", session: session)
            #expect(deleted["deleted"] as? Bool == true)

            // Signing in elsewhere with the new credential reaches the same uid.
            let other = stack.sessionFile("other")
            let signIn = try await ok(stack, "sign-in", "--email", email, "--password", strongPassword, session: other)
            #expect(signIn["uid"] as? String == uid)
        }
    }

    @Test("link fails with a ticket in the error JSON; resolve --merge finishes later")
    func conflictAndResolve() async throws {
        try await withStack { stack in
            let account = stack.sessionFile("account")
            let email = uniqueEmail()
            let created = try await ok(
                stack,
                "sign-up",
                "--email",
                email,
                "--password",
                strongPassword,
                session: account
            )
            #expect(created["guestCreated"] as? Bool == true)
            let accountUID = try #require(created["uid"] as? String)

            let guest = stack.sessionFile("guest")
            _ = try await ok(stack, "guest", session: guest)
            _ = try await ok(stack, "put", "notes", "from-guest", "hello", session: guest)
            let conflict = try await ok(
                stack,
                "link",
                "--email",
                email,
                "--password",
                strongPassword,
                session: guest
            )
            #expect(conflict["outcome"] as? String == "conflict")
            #expect(conflict["otherUid"] as? String == accountUID)
            #expect(conflict["uid"] == nil, "a conflict answers no session")
            let ticket = try #require(conflict["ticket"] as? String)
            #expect(conflict["ticketExpiresAt"] is String)

            let resolved = try await ok(stack, "resolve", "--ticket", ticket, "--merge", session: guest)
            #expect(resolved["outcome"] as? String == "merged")
            #expect(resolved["uid"] as? String == accountUID)
            #expect((resolved["mergeReport"] as? [String: Any])?["moved"] as? Int == 1)
            // The session file now holds the account's session, which has the guest's document.
            let got = try await ok(stack, "get", "notes", "from-guest", session: guest)
            #expect(got["value"] as? String == "hello")

            // With --on-conflict discard a second guest's data goes away.
            let second = stack.sessionFile("second")
            _ = try await ok(stack, "guest", session: second)
            _ = try await ok(stack, "put", "notes", "doomed", "x", session: second)
            let discarded = try await ok(
                stack,
                "link",
                "--email",
                email,
                "--password",
                strongPassword,
                "--on-conflict",
                "discard",
                session: second
            )
            #expect(discarded["outcome"] as? String == "discarded")
            #expect(try await ok(stack, "get", "notes", "doomed", session: second)["found"] as? Bool == false)
        }
    }

    @Test("email-link send keeps the verifier in the session file; complete links with the token from the outbox")
    func emailLink() async throws {
        try await withStack { stack in
            let session = stack.sessionFile("email")
            let guest = try await ok(stack, "guest", session: session)
            let email = uniqueEmail()
            let sent = try await ok(stack, "email-link", "send", "--email", email, session: session)
            #expect(sent["purpose"] as? String == "link")
            #expect(try StoredSession.load(from: session)?.pendingEmailLink?.email == email)

            // The outbox is read on identity's listener with the cluster secret, never through the gateway.
            let identity = "127.0.0.1:\(stack.identityPort)"
            let secretFile = try stack.clusterSecretFile()
            let outbox = try await ok(
                stack,
                "outbox",
                "--identity",
                identity,
                "--cluster-secret-file",
                secretFile,
                "--to",
                email,
                "--limit",
                "1"
            )
            let message = try #require((outbox["messages"] as? [[String: Any]])?.first)
            let token = try #require(message["token"] as? String)
            #expect(message["to"] as? String == email)
            let wrongSecret = try await CLI.run(
                ["outbox", "--identity", identity, "--to", email, "--timeout", "2"],
                environment: ["FOYER_CLUSTER_SECRET": ClusterSecretText.random()]
            )
            #expect(wrongSecret.status == 1)
            #expect(wrongSecret.stdout.isEmpty && !wrongSecret.stderr.contains(token))

            let completed = try await ok(stack, "email-link", "complete", "--token", token, session: session)
            #expect(completed["outcome"] as? String == "linked")
            #expect(completed["uid"] as? String == guest["uid"] as? String)
            #expect(try StoredSession.load(from: session)?.pendingEmailLink == nil)
            let me = try await ok(stack, "me", session: session)
            #expect(me["emailVerified"] as? Bool == true)
        }
    }

    @Test("email-link code signs in with the code from an email another session file asked for")
    func emailCode() async throws {
        try await withStack { stack in
            let email = uniqueEmail("cli-code")
            _ = try await ok(stack, "email-link", "send", "--email", email, session: stack.sessionFile("asking"))
            let message = try #require(try await stack.outbox(to: email, limit: 1).first)
            let code = try #require(EmailCode.code(inMessage: message.body))
            let other = stack.sessionFile("other")
            let signedIn = try await ok(stack, "email-link", "code", "--email", email, "--code", code, session: other)
            #expect(signedIn["outcome"] as? String == "linked" && signedIn["isAnonymous"] as? Bool == false)
            #expect(signedIn["email"] as? String == email)
            let me = try await ok(stack, "me", session: other)
            #expect(me["email"] as? String == email)
        }
    }

    @Test(
        "admin bootstrap-key makes an admin key on identity's listener with the cluster secret, and is refused without it"
    )
    func bootstrapKey() async throws {
        try await withStack { stack in
            let identity = "127.0.0.1:\(stack.identityPort)"
            let secretFile = try stack.clusterSecretFile()
            let bootstrap = ["admin", "bootstrap-key", "--name", "ops", "--identity", identity]
            let printed = try await CLI.run(bootstrap + ["--cluster-secret-file", secretFile])
            #expect(printed.status == 0, "\(printed.stderr)")
            let answer = try printed.output()
            let keyID = try #require(answer["keyID"] as? String)
            #expect(answer["createdBy"] as? String == "cluster-secret" && answer["name"] as? String == "ops")
            #expect((answer["key"] as? String)?.hasPrefix("foyer_admin_\(keyID)_") == true, "\(answer)")

            let file = stack.sessionFile("admin-key")
            let saved = try await CLI.run(bootstrap + ["--cluster-secret-file", secretFile, "--save-to", file])
            #expect(saved.status == 0, "\(saved.stderr)")
            #expect(try saved.output()["key"] == nil, "a saved key is not printed")
            let key = try String(contentsOfFile: file, encoding: .utf8).trimmingCharacters(in: .newlines)
            #expect(key.hasPrefix("foyer_admin_"))
            let permissions = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
            #expect(permissions == 0o600)
            let overwrite = try await CLI.run(bootstrap + ["--cluster-secret-file", secretFile, "--save-to", file])
            #expect(overwrite.status == 1, "an existing file is never overwritten")
            #expect(try String(contentsOfFile: file, encoding: .utf8).hasPrefix(key))

            let wrongSecret = try await CLI.run(
                bootstrap + ["--timeout", "2"],
                environment: ["FOYER_CLUSTER_SECRET": ClusterSecretText.random()]
            )
            #expect(wrongSecret.status == 1 && wrongSecret.stdout.isEmpty)
            #expect(try wrongSecret.error()["error"] as? String != nil)
        }
    }

    @Test("sign-out of a guest deletes it and the session file; delete-account too")
    func signOutAndDelete() async throws {
        try await withStack { stack in
            let session = stack.sessionFile("leaving")
            _ = try await ok(stack, "guest", session: session)
            _ = try await ok(stack, "put", "notes", "n", "v", session: session)
            let out = try await ok(stack, "sign-out", session: session)
            #expect(out["accountDeleted"] as? Bool == true)
            #expect(!FileManager.default.fileExists(atPath: session))
            let notSignedIn = try await fails(stack, "me", session: session)
            #expect(notSignedIn.error["error"] as? String == "not-signed-in")
            #expect(notSignedIn.error["status"] as? Int == 0)

            _ = try await ok(stack, "sign-up", "--email", uniqueEmail(), "--password", strongPassword, session: session)
            _ = try await ok(stack, "put", "notes", "n", "v", session: session)
            let deleted = try await ok(stack, "delete-account", session: session)
            #expect(deleted["documentsDeleted"] as? Int == 1)
            #expect(!FileManager.default.fileExists(atPath: session))
        }
    }

    @Test("binary values, jwks, token, refresh, cleanup status and sweep, environment variables")
    func miscellany() async throws {
        try await withStack { stack in
            let session = stack.sessionFile("misc")
            // FOYER_GATEWAY and FOYER_SESSION stand in for the flags.
            let environment = ["FOYER_GATEWAY": "127.0.0.1:\(stack.gatewayPort)", "FOYER_SESSION": session]
            let guest = try await CLI.run(["guest"], environment: environment)
            #expect(guest.status == 0, "\(guest.stderr)")
            #expect(try StoredSession.load(from: session)?.gateway == "127.0.0.1:\(stack.gatewayPort)")

            let binary = stack.directory.appendingPathComponent("blob.bin")
            try Data([0xFF, 0x00, 0x80]).write(to: binary)
            _ = try await ok(stack, "put", "blobs", "b", "--file", binary.path, session: session)
            let got = try await ok(stack, "get", "blobs", "b", session: session)
            #expect(got["encoding"] as? String == "base64")
            #expect(got["value"] as? String == Data([0xFF, 0x00, 0x80]).base64EncodedString())

            // Values that begin with a dash: after `--` for arguments; options that take tokens, tickets and
            // cursors (base64url, which may begin with a dash) accept them as they are.
            _ = try await ok(stack, "put", "notes", "negative", "--", "-5", session: session)
            #expect(try await ok(stack, "get", "notes", "negative", session: session)["value"] as? String == "-5")
            let dashed = try await fails(stack, "list", "notes", "--cursor", "-AAAAA", session: session)
            #expect(dashed.status == 1)
            #expect(dashed.error["error"] as? String == "invalid-cursor")

            let jwks = try await ok(stack, "jwks")
            let keys = try #require(jwks["keys"] as? [[String: Any]])
            #expect(keys.first?["kty"] as? String == "EC")

            let before = try #require(try StoredSession.load(from: session)?.session)
            let refreshed = try await ok(stack, "refresh", session: session)
            #expect(refreshed["uid"] as? String == before.uid)
            let after = try #require(try StoredSession.load(from: session)?.session)
            #expect(after.refreshToken != before.refreshToken)
            let token = try await ok(stack, "token", session: session)
            #expect(token["accessToken"] as? String == after.accessToken)

            let secretFile = try stack.clusterSecretFile()
            let cleanupAddress = "127.0.0.1:\(stack.cleanupPort)"
            let status = try await ok(
                stack,
                "cleanup",
                "status",
                "--cleanup",
                cleanupAddress,
                "--secret-file",
                secretFile
            )
            #expect(status["running"] as? Bool == false)
            let sweep = try await ok(
                stack,
                "cleanup",
                "sweep",
                "--dry-run",
                "--cleanup",
                cleanupAddress,
                "--secret-file",
                secretFile
            )
            #expect(sweep["dryRun"] as? Bool == true)
            #expect(sweep["expiredGuests"] as? Int == 0)
            // Without the right secret, the internal service refuses the connection.
            let wrong = try await CLI.run(
                ["cleanup", "status", "--cleanup", cleanupAddress, "--timeout", "2"],
                environment: ["FOYER_CLUSTER_SECRET": ClusterSecretText.random()]
            )
            #expect(wrong.status == 1)
            #expect(try wrong.error()["error"] is String)
        }
    }

    @Test("Usage errors, help, and an unreachable gateway")
    func errorsAndHelp() async throws {
        let help = try await CLI.run(["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("FOYER_GATEWAY"))
        #expect(help.stdout.contains("sign-up"))
        let putHelp = try await CLI.run(["put", "--help"])
        #expect(putHelp.status == 0)
        #expect(putHelp.stdout.contains("--file"))

        let usage = try await CLI.run(["put", "only-a-collection"])
        #expect(usage.status == 64)
        #expect(try usage.error()["error"] as? String == "usage")
        let unknown = try await CLI.run(["frobnicate"])
        #expect(unknown.status == 64)
        #expect(try unknown.error()["error"] as? String == "usage")

        let unreachable = try await CLI.run(["guest", "--gateway", "127.0.0.1:1", "--timeout", "2"])
        #expect(unreachable.status == 1)
        #expect(try unreachable.error()["error"] as? String == "unavailable")
    }
}

extension CLI {
    static func run(arguments: [String], stack: Stack, session: String?) async throws -> Result {
        var all = arguments
        if ["cleanup", "outbox", "admin"].contains(all.first) { return try await run(all) }
        let grouped =
            ["email-link", "reset-password", "change-email"].contains(all.first)
            || (all.first == "quota" && all.count > 1 && !all[1].hasPrefix("-"))
        let depth = grouped ? 2 : 1
        var options = ["--gateway", "127.0.0.1:\(stack.gatewayPort)"]
        if let session { options += ["--session", session] }
        all.insert(contentsOf: options, at: min(depth, all.count))
        return try await run(all)
    }
}

/// A random cluster secret's text (not the stack's).
enum ClusterSecretText {
    static func random() -> String { OperationID.make() + OperationID.make() }
}
