import NIOCore
import Testing

@testable import FoyerIdentity

@Suite("SMTP conversation and reply parsing, without I/O")
struct SMTPConversationTests {
    private let envelope = SMTPConversation.Envelope(
        sender: "no-reply@foyer.test",
        recipient: "ada@example.com",
        message: "Subject: hi\r\n\r\nbody\r\n"
    )

    private func reply(_ code: Int, _ lines: String...) -> SMTPReply {
        SMTPReply(code: code, lines: lines.isEmpty ? [""] : lines)
    }

    private func settings(_ security: SMTPSettings.Security, auth: Bool = false) -> SMTPSettings {
        var settings = SMTPSettings(host: "smtp.example.com", security: security)
        if auth {
            settings.username = "user"
            settings.password = "secret"
        }
        return settings
    }

    @Test("STARTTLS, EHLO again, AUTH PLAIN, then the transaction, the message and QUIT")
    func startTLSAndPlain() {
        var conversation = SMTPConversation(settings: settings(.startTLS, auth: true), envelope: envelope)
        #expect(conversation.receive(reply(220, "ready")) == .send("EHLO localhost"))
        #expect(conversation.receive(reply(250, "hello", "STARTTLS", "AUTH LOGIN")) == .send("STARTTLS"))
        #expect(conversation.receive(reply(220, "go ahead")) == .startTLS)
        #expect(conversation.tlsEstablished() == .send("EHLO localhost"))
        // "\0user\0secret" in base64.
        #expect(
            conversation.receive(reply(250, "hello", "AUTH PLAIN LOGIN", "8BITMIME"))
                == .send("AUTH PLAIN AHVzZXIAc2VjcmV0")
        )
        #expect(conversation.receive(reply(235, "2.7.0 ok")) == .send("MAIL FROM:<no-reply@foyer.test> BODY=8BITMIME"))
        #expect(conversation.receive(reply(250)) == .send("RCPT TO:<ada@example.com>"))
        #expect(conversation.receive(reply(250)) == .send("DATA"))
        #expect(conversation.receive(reply(354)) == .sendMessage(Array("Subject: hi\r\n\r\nbody\r\n.\r\n".utf8)))
        #expect(!conversation.isDelivered)
        #expect(conversation.receive(reply(250, "queued")) == .delivered(then: "QUIT"))
        #expect(conversation.isDelivered)
        #expect(conversation.receive(reply(221)) == .close)
    }

    @Test("AUTH LOGIN when the server offers only LOGIN, over implicit TLS (no STARTTLS)")
    func login() {
        var conversation = SMTPConversation(settings: settings(.implicitTLS, auth: true), envelope: envelope)
        #expect(conversation.receive(reply(220)) == .send("EHLO localhost"))
        #expect(conversation.receive(reply(250, "hello", "AUTH LOGIN")) == .send("AUTH LOGIN"))
        #expect(conversation.receive(reply(334, "VXNlcm5hbWU6")) == .send("dXNlcg=="))
        #expect(conversation.receive(reply(334, "UGFzc3dvcmQ6")) == .send("c2VjcmV0"))
        #expect(conversation.receive(reply(235)) == .send("MAIL FROM:<no-reply@foyer.test>"))
    }

    @Test("Never less than the settings ask: no STARTTLS offered, no AUTH after TLS, or no mechanism we speak")
    func refusals() {
        var plain = SMTPConversation(settings: settings(.startTLS), envelope: envelope)
        _ = plain.receive(reply(220))
        guard case .fail(let error) = plain.receive(reply(250, "hello", "AUTH PLAIN")) else {
            Issue.record("a server without STARTTLS was used")
            return
        }
        #expect(!error.isTransient)
        #expect(error.description.contains("STARTTLS"))

        var cram = SMTPConversation(settings: settings(.implicitTLS, auth: true), envelope: envelope)
        _ = cram.receive(reply(220))
        guard case .fail(let noMechanism) = cram.receive(reply(250, "hello", "AUTH CRAM-MD5")) else {
            Issue.record("an unknown AUTH mechanism was used")
            return
        }
        #expect(!noMechanism.isTransient)
    }

    @Test("4xx replies are transient, 5xx permanent; the error names the code, never the reply's text")
    func failures() {
        var busy = SMTPConversation(settings: settings(.none), envelope: envelope)
        guard case .fail(let transient) = busy.receive(reply(421, "4.3.2 ada@example.com later")) else {
            Issue.record("a 421 greeting was accepted")
            return
        }
        #expect(transient.isTransient)
        #expect(transient.description.contains("421 4.3.2"))
        #expect(!transient.description.contains("ada@example.com"))

        var rejected = SMTPConversation(settings: settings(.none), envelope: envelope)
        _ = rejected.receive(reply(220))
        _ = rejected.receive(reply(250, "hello"))
        _ = rejected.receive(reply(250))
        guard case .fail(let permanent) = rejected.receive(reply(550, "5.1.1 <ada@example.com> unknown")) else {
            Issue.record("a 550 to RCPT was accepted")
            return
        }
        #expect(!permanent.isTransient)
        #expect(permanent.description.contains("RCPT TO"))
        #expect(!permanent.description.contains("ada@example.com"))
    }

    @Test("DATA: CRLF line ends everywhere, lines that begin with a dot get another, then the lone dot")
    func dataEncoding() {
        let encoded = SMTPConversation.encodeData("a\n.hidden\r\n..two\rlast\n.")
        #expect(String(decoding: encoded, as: UTF8.self) == "a\r\n..hidden\r\n...two\r\nlast\r\n..\r\n.\r\n")
        #expect(String(decoding: SMTPConversation.encodeData(""), as: UTF8.self) == ".\r\n")
    }

    @Test("Replies: multi-line joined, bare LF tolerated, bytes split anywhere; malformed or oversized lines refused")
    func parser() throws {
        var parser = SMTPReplyParser()
        let text = "250-foyer-test-smtp\r\n250-AUTH PLAIN LOGIN\n250 STARTTLS\r\n220 go"
        for byte in text.utf8 { parser.append(ByteBuffer(bytes: [byte])) }
        let first = try #require(try parser.next())
        #expect(first == SMTPReply(code: 250, lines: ["foyer-test-smtp", "AUTH PLAIN LOGIN", "STARTTLS"]))
        #expect(first.extensions["AUTH"] == ["PLAIN", "LOGIN"])
        #expect(first.extensions["STARTTLS"] == [])
        #expect(try parser.next() == nil)
        #expect(parser.hasBufferedBytes)
        parser.append(ByteBuffer(string: "\r\n"))
        #expect(try parser.next() == SMTPReply(code: 220, lines: ["go"]))
        #expect(!parser.hasBufferedBytes)

        for bad in ["hello\r\n", "25\r\n", "250-a\r\n251 b\r\n", "250_x\r\n", String(repeating: "9", count: 3000)] {
            var parser = SMTPReplyParser()
            parser.append(ByteBuffer(string: bad))
            #expect(throws: SMTPError.self, "\(bad.prefix(20))") { try parser.next() }
        }
        var long = SMTPReplyParser()
        for _ in 0...SMTPReplyParser.linesMax { long.append(ByteBuffer(string: "250-x\r\n")) }
        #expect(throws: SMTPError.self) { try long.next() }
    }
}
