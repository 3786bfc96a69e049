import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerIdentity
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import Testing

@Suite("Mailers")
struct MailerTests {
    private func start(_ identity: IdentityHarness, _ email: String, _ verifier: LinkVerifier) async throws {
        try await identity.call(
            IdentityMethods.startEmailLink,
            StartEmailLinkRequest(purpose: .signIn, email: email, verifierChallenge: verifier.challenge)
        )
    }

    @Test("A sendmail-compatible program gets the message on stdin with -t -i", arguments: [TestEngine.sqlite])
    func sendmail(engine: TestEngine) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "foyer-sendmail-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let captured = directory.appendingPathComponent("message.txt")
        let program = directory.appendingPathComponent("fake-sendmail")
        try "#!/bin/sh\necho \"$@\" > '\(captured.path).args'\ncat > '\(captured.path)'\n".write(
            to: program,
            atomically: true,
            encoding: .utf8
        )
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: program.path)

        try await withIdentity(engine, configure: { $0.mailer = .sendmail(path: program.path) }) { identity in
            let client = LinkVerifier()
            try await start(identity, "sid@example.com", client)
            let message = try String(contentsOf: captured, encoding: .utf8)
            #expect(message.contains("To: sid@example.com\r\n"))
            #expect(message.contains("Subject: Your sign-in link\r\n"))
            #expect(try String(contentsOf: URL(fileURLWithPath: captured.path + ".args"), encoding: .utf8) == "-t -i\n")
            let token = try #require(tokenInMessage(message))
            #expect(try await identity.completeLink(token, verifier: client.verifier).isAnonymous == false)
            #expect(
                await identity.status(IdentityMethods.listOutbox, ListOutboxRequest())
                    == IdentityStatus.outboxDisabled
            )
        }
    }

    @Test(
        "Without a mailer, email links are refused with mail-unavailable and nothing is kept",
        arguments: TestEngine.allCases
    )
    func noMailer(engine: TestEngine) async throws {
        try await withIdentity(engine, configure: { $0.mailer = .disabled }) { identity in
            #expect(
                await status { try await start(identity, "nomail@example.com", LinkVerifier()) }
                    == IdentityStatus.mailUnavailable
            )
            let links = try await identity.count("identity_email_links")
            let outbox = try await identity.count("identity_outbox")
            #expect(links == 0 && outbox == 0, "nothing is kept")
        }
    }

    @Test(
        "SMTP: a link goes out over STARTTLS with AUTH, and its token signs in; a refusing server fails the call",
        arguments: TestEngine.allCases
    )
    func smtp(engine: TestEngine) async throws {
        try await SMTPMailerTests.servers.withServer(security: .starttls, auth: ("identity", "relay pw")) { server in
            var settings = SMTPSettings(host: "localhost", port: server.port, security: .startTLS)
            settings.username = "identity"
            settings.password = "relay pw"
            settings.trustRootsFile = server.caFile
            try await withIdentity(engine, configure: { $0.mailer = .smtp(settings) }) { identity in
                let client = LinkVerifier()
                try await start(identity, "sam@example.com", client)
                let delivered = try #require(try await server.report().messages.first)
                #expect(delivered.rcptTos == ["sam@example.com"] && delivered.tls && delivered.login == "identity")
                let token = try #require(tokenInMessage(delivered.data))
                #expect(try await identity.completeLink(token, verifier: client.verifier).isAnonymous == false)
                let outbox = try await identity.count("identity_outbox")
                #expect(outbox == 0)
            }
        }
        let refusal = SMTPTestServer.Failure(stage: "rcpt", reply: "550 5.1.1 no such user", times: 1)
        try await SMTPMailerTests.servers.withServer(failure: refusal) { server in
            let settings = SMTPSettings(host: "127.0.0.1", port: server.port, security: .none)
            try await withIdentity(engine, configure: { $0.mailer = .smtp(settings) }) { identity in
                #expect(
                    await status { try await start(identity, "sam@example.com", LinkVerifier()) }
                        == IdentityStatus.mailUnavailable
                )
                let kept = try await identity.count("identity_email_links")
                #expect(kept == 0, "nothing half-written is left")
            }
        }
    }

    @Test(
        "A webhook gets a signed JSON POST; when it fails, the call fails and no token is kept",
        arguments: TestEngine.allCases
    )
    func webhook(engine: TestEngine) async throws {
        try await withLoopbackHTTPServer({ request in
            .init(status: request.path == "/mail" ? 202 : 500)
        }) { server in
            try await withIdentity(
                engine,
                configure: { $0.mailer = .webhook(url: server.url("/mail"), secret: "a sixteen-byte hook secret") }
            ) {
                identity in
                let client = LinkVerifier()
                try await start(identity, "wes@example.com", client)
                let request = try #require(server.requests.last)
                #expect(request.method == "POST" && request.headers["content-type"] == "application/json")
                // Standard Webhooks: the id and the timestamp are signed with the body, so a replay is refused too.
                let id = try #require(request.headers["webhook-id"])
                let timestamp = try #require(request.headers["webhook-timestamp"])
                #expect(Int64(timestamp) == Int64(identity.clock.now().timeIntervalSince1970))
                let signed = Array("\(id).\(timestamp).".utf8) + request.body
                let expected = HMACSHA256.authenticationCode(
                    key: Array("a sixteen-byte hook secret".utf8),
                    message: signed
                )
                #expect(request.headers["webhook-signature"] == "v1," + Data(expected).base64EncodedString())
                #expect(request.headers["x-foyer-signature"] == nil)
                let payload = try JSONDecoder().decode([String: String].self, from: Data(request.body))
                #expect(payload["to"] == "wes@example.com")
                let token = try #require(tokenInMessage(payload["text"] ?? ""))
                #expect(try await identity.completeLink(token, verifier: client.verifier).isAnonymous == false)
            }
            try await withIdentity(
                engine,
                configure: { $0.mailer = .webhook(url: server.url("/broken"), secret: "a sixteen-byte hook secret") }
            ) {
                identity in
                #expect(
                    await status { try await start(identity, "wes@example.com", LinkVerifier()) }
                        == IdentityStatus.mailUnavailable
                )
                let kept = try await identity.count("identity_email_links")
                #expect(kept == 0, "nothing half-written is left")
            }
        }
    }
}
