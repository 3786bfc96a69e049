import Foundation
import FoyerAPI
import FoyerClient
import FoyerCrypto
import FoyerRPC
import FoyerStackProcesses
import FoyerTestSupport
import FoyerWire
import Testing

extension RunningStack {
    /// The newest messages in identity's outbox (local mode), read as an operator does: on identity's listener,
    /// with the cluster secret from the data directory.
    func outbox(to recipient: String, limit: Int = 1) async throws -> [OutboxMessage] {
        let secret = try FoyerCleanupClient.loadSecret(
            path: processes.configuration.clusterSecretFile.path,
            environment: [:]
        )
        return try await FoyerOutboxClient.messages(
            host: "127.0.0.1",
            port: processes.port(of: .identity),
            secret: secret,
            recipient: recipient,
            limit: limit,
            logger: TestLogging.logger("foyer.test.outbox-client")
        )
    }

    /// Restarts identity with the test settings and `mail`; without mail settings it has no mailer and no local
    /// mode.
    func restartIdentity(mail: [String: String]) async throws {
        let base = ["FOYER_TEST_SCRYPT_LOG_N": "10", "FOYER_LOCAL_MODE": "0", "FOYER_MAILER": "none"]
        try await processes.restart(.identity, environment: base.merging(mail) { $1 })
    }

    /// What identity logged since it last started.
    func identityLog() throws -> String {
        let text = try String(contentsOf: processes.configuration.logFile(of: .identity), encoding: .utf8)
        return text.components(separatedBy: "--- starting identity").last ?? ""
    }
}

/// How the real identity executable sends email links: the settings `make run`, compose and operators use.
@Suite("Mail through the real executables", .serialized, .sharedStack())
struct MailTests {
    static let smtpServers = SMTPTestServers()

    @Test("Local mode: identity warns, the gateway has no outbox, the operator reads it with the cluster secret")
    func localMode() async throws {
        let stack = try SharedStack.get()
        try await stack.restartIdentity(mail: ["FOYER_LOCAL_MODE": "1", "FOYER_MAILER": "outbox"])
        #expect(try stack.identityLog().contains("LOCAL MODE"))
        let email = uniqueEmail("local")
        try await stack.withClient { client in
            let verifier = try await client.sendEmailLink(to: email, purpose: .signIn)
            let retired = RPCMethod<ListOutboxRequest, OutboxMessages>(
                id: 0x0531,
                name: "gateway.outbox",
                idempotent: true
            )
            let gateway = testClient(port: stack.processes.port(of: .gateway), service: "gateway", secret: nil) {
                $0.maxAttempts = 1
            }
            let refused = await #expect(throws: RPCError.self) {
                try await gateway.call(retired, ListOutboxRequest(recipient: email, limit: 1))
            }
            await gateway.shutdown()
            #expect(refused?.status == .unimplemented)
            let link = try #require(try await stack.outbox(to: email).first).body
            let result = try await client.completeEmailLink(token: link, verifier: verifier, purpose: .signIn)
            #expect(result.session?.isAnonymous == false)
        }
    }

    @Test("The outbox mailer without local mode stops identity's start, saying why")
    func outboxNeedsLocalMode() async throws {
        let stack = try SharedStack.get()
        await #expect(throws: StackProcessesError.self) {
            try await stack.restartIdentity(mail: ["FOYER_LOCAL_MODE": "0", "FOYER_MAILER": "outbox"])
        }
        #expect(try stack.identityLog().contains("needs local mode"))
        try await stack.restartIdentity(mail: [:])
        let log = try stack.identityLog()
        #expect(!log.contains("LOCAL MODE") && log.contains("no mailer configured"))
        let refused = await #expect(throws: FoyerError.self) {
            try await stack.withClient { client in
                try await client.sendEmailLink(to: uniqueEmail("nomail"), purpose: .signIn)
            }
        }
        #expect(refused?.status == IdentityStatus.mailUnavailable, "without a mailer, email links are refused")
    }

    @Test("--mail-webhook-secret-file: the webhook's POST is signed with the file's secret")
    func webhookSecretFile() async throws {
        let stack = try SharedStack.get()
        let secretFile = stack.directory.appendingPathComponent("webhook-secret")
        try "a webhook secret\n".write(to: secretFile, atomically: true, encoding: .utf8)
        try await withLoopbackHTTPServer({ _ in .init(status: 204) }) { server in
            try await stack.restartIdentity(mail: [
                "FOYER_MAILER": "webhook:\(server.url("/mail"))",
                "FOYER_MAIL_WEBHOOK_SECRET_FILE": secretFile.path,
            ])
            let email = uniqueEmail("hook")
            try await stack.withClient { client in
                _ = try await client.sendEmailLink(to: email, purpose: .signIn)
            }
            let request = try #require(server.requests.last)
            let id = try #require(request.headers["webhook-id"])
            let timestamp = try #require(request.headers["webhook-timestamp"])
            let signed = Array("\(id).\(timestamp).".utf8) + request.body
            let expected = HMACSHA256.authenticationCode(key: Array("a webhook secret".utf8), message: signed)
            #expect(request.headers["webhook-signature"] == "v1," + Data(expected).base64EncodedString())
            #expect(String(decoding: request.body, as: UTF8.self).contains(email))
        }
    }

    @Test("--mailer smtp with STARTTLS, AUTH from a password file and a private CA delivers the link")
    func smtp() async throws {
        let stack = try SharedStack.get()
        let passwordFile = stack.directory.appendingPathComponent("smtp-password")
        try "relay password\n".write(to: passwordFile, atomically: true, encoding: .utf8)
        try await Self.smtpServers.withServer(security: .starttls, auth: ("foyer", "relay password")) { server in
            try await stack.restartIdentity(mail: [
                "FOYER_MAILER": "smtp",
                "FOYER_SMTP_HOST": "localhost",
                "FOYER_SMTP_PORT": "\(server.port)",
                "FOYER_SMTP_SECURITY": "starttls",
                "FOYER_SMTP_USERNAME": "foyer",
                "FOYER_SMTP_PASSWORD_FILE": passwordFile.path,
                "FOYER_SMTP_CA_FILE": server.caFile,
                "FOYER_MAIL_FROM": "Foyer <sign-in@foyer.test>",
            ])
            let email = uniqueEmail("smtp")
            try await stack.withClient { client in
                _ = try await client.sendEmailLink(to: email, purpose: .signIn)
            }
            let delivered = try #require(try await server.report().messages.first)
            #expect(delivered.mailFrom == "sign-in@foyer.test" && delivered.rcptTos == [email])
            #expect(delivered.tls && delivered.login == "foyer")
            #expect(delivered.data.contains("#token="))
        }
    }
}
