import Foundation
import FoyerTestSupport
import Logging
import Synchronization
import Testing

@testable import FoyerIdentity

/// The SMTP mailer against real SMTP servers (Python's aiosmtpd on 127.0.0.1, see SMTPTestServer).
@Suite("SMTP mailer")
struct SMTPMailerTests {
    static let servers = SMTPTestServers()

    private let message = MailMessage(
        id: "m1",
        sender: "Foyer <no-reply@foyer.test>",
        recipient: "ada@example.com",
        subject: "Your sign-in link",
        body: "Use this link:\n\nfoyer://email-link#token=SECRET-TOKEN\n.\n.starts with a dot\n"
    )

    /// Settings for `server`: its CA trusted, quick retries.
    private func settings(
        _ server: SMTPTestServer,
        _ security: SMTPSettings.Security,
        host: String = "localhost"
    ) -> SMTPSettings {
        var settings = SMTPSettings(host: host, port: server.port, security: security)
        settings.trustRootsFile = server.caFile
        settings.retryBackoff = .milliseconds(10)
        return settings
    }

    private func mailer(_ settings: SMTPSettings, logs: CapturedLog = CapturedLog()) throws -> SMTPMailer {
        try SMTPMailer(settings: settings, logger: logs.logger())
    }

    private func smtpError(_ body: () async throws -> Void) async throws -> SMTPError {
        do {
            try await body()
        } catch let error as SMTPError {
            return error
        }
        throw TestFailure("the submission succeeded but was expected to fail")
    }

    @Test("Plain submission: envelope, headers, and a body with dot lines arrive exactly as written")
    func plain() async throws {
        try await Self.servers.withServer(security: .none) { server in
            try await mailer(settings(server, .none, host: "127.0.0.1")).send(message)
            let report = try await server.report()
            let delivered = try #require(report.messages.first)
            #expect(report.messages.count == 1)
            #expect(delivered.mailFrom == "no-reply@foyer.test")
            #expect(delivered.rcptTos == ["ada@example.com"])
            #expect(delivered.data.contains("To: ada@example.com\r\n"))
            #expect(delivered.data.contains("Subject: Your sign-in link\r\n"))
            #expect(delivered.data.contains("#token=SECRET-TOKEN\r\n.\r\n.starts with a dot\r\n"))
            #expect(delivered.login == nil && !delivered.tls)
        }
    }

    @Test("STARTTLS then AUTH PLAIN: the server saw TLS and the user; a wrong password is refused for good")
    func startTLSWithAuth() async throws {
        try await Self.servers.withServer(security: .starttls, auth: ("mailer", "right password")) { server in
            var good = settings(server, .startTLS)
            good.username = "mailer"
            good.password = "right password"
            try await mailer(good).send(message)
            let report = try await server.report()
            #expect(report.mechanisms == ["PLAIN"])
            #expect(report.messages.map(\.login) == ["mailer"])
            #expect(report.messages.map(\.tls) == [true])

            var bad = good
            bad.password = "wrong password"
            let error = try await smtpError { try await mailer(bad).send(message) }
            #expect(!error.isTransient, "535 is permanent: \(error)")
            #expect(try await server.report().connections == 2, "not retried")
        }
    }

    @Test("Implicit TLS (SMTPS) with AUTH LOGIN when the server offers only LOGIN")
    func implicitTLSWithLogin() async throws {
        try await Self.servers.withServer(security: .tls, auth: ("mailer", "pw"), mechanisms: ["LOGIN"]) { server in
            var settings = settings(server, .implicitTLS)
            settings.username = "mailer"
            settings.password = "pw"
            try await mailer(settings).send(message)
            let report = try await server.report()
            #expect(report.mechanisms == ["LOGIN"])
            #expect(report.messages.map(\.tls) == [true])
        }
    }

    @Test("A server without STARTTLS, or a certificate from a CA nobody trusts: refused, nothing sent, no retry")
    func noDowngrade() async throws {
        try await Self.servers.withServer(security: .none) { server in
            let error = try await smtpError { try await mailer(settings(server, .startTLS)).send(message) }
            #expect(!error.isTransient)
            #expect(error.description.contains("STARTTLS"))
            let report = try await server.report()
            #expect(report.connections == 1 && report.attempts["mail"] == 0)
        }
        try await Self.servers.withServer(security: .starttls) { server in
            var untrusted = settings(server, .startTLS)
            untrusted.trustRootsFile = nil
            let error = try await smtpError { try await mailer(untrusted).send(message) }
            #expect(!error.isTransient, "\(error)")
            let report = try await server.report()
            #expect(report.connections == 1 && report.attempts["mail"] == 0)
        }
    }

    @Test("A 5xx reply is not retried")
    func permanentFailure() async throws {
        let failure = SMTPTestServer.Failure(stage: "rcpt", reply: "550 5.1.1 <ada@example.com> unknown", times: 10)
        try await Self.servers.withServer(failure: failure) { server in
            let error = try await smtpError {
                try await mailer(settings(server, .none, host: "127.0.0.1")).send(message)
            }
            #expect(!error.isTransient)
            #expect(error.description.contains("550 5.1.1"))
            let report = try await server.report()
            #expect(report.attempts["rcpt"] == 1 && report.connections == 1)
            #expect(report.messages.isEmpty)
        }
    }

    @Test("A 4xx reply is retried, then delivered once; the logs carry neither the message nor an address")
    func transientFailure() async throws {
        let failure = SMTPTestServer.Failure(stage: "data", reply: "451 4.3.0 Try again later", times: 1)
        try await Self.servers.withServer(failure: failure) { server in
            let logs = CapturedLog()
            try await mailer(settings(server, .none, host: "127.0.0.1"), logs: logs).send(message)
            let report = try await server.report()
            #expect(report.attempts["data"] == 2 && report.connections == 2)
            #expect(report.messages.count == 1)
            let text = logs.text
            #expect(text.contains("smtp.attempt=1") && text.contains("451 4.3.0"))
            for secret in ["SECRET-TOKEN", "ada@example.com", "no-reply@foyer.test", "Try again"] {
                #expect(!text.contains(secret), "the log shows \(secret)")
            }
        }
    }

    @Test("A server that never answers: each try ends at the command timeout, and transient failures are retried")
    func timeout() async throws {
        try await Self.servers.withServer(silent: true) { server in
            var settings = settings(server, .none, host: "127.0.0.1")
            settings.commandTimeout = .milliseconds(200)
            settings.attemptsMax = 2
            let error = try await smtpError { try await mailer(settings).send(message) }
            #expect(error.isTransient)
            #expect(error.description.contains("did not answer the greeting in time"))
            #expect(try await server.report().connections == 2)
        }
    }
}
