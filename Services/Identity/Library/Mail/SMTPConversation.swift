import Foundation

/// The client side of one SMTP submission (RFC 5321, STARTTLS RFC 3207, AUTH RFC 4954) as a value-type state
/// machine: the channel handler feeds it replies and TLS events and carries out the action it returns, so every
/// step is testable without I/O.
///
/// greeting → EHLO → [STARTTLS → TLS → EHLO] → [AUTH PLAIN | AUTH LOGIN] → MAIL FROM → RCPT TO → DATA → message
/// → QUIT. A security the settings require but the server does not offer (STARTTLS, an AUTH mechanism) fails the
/// submission; it never falls back to less.
struct SMTPConversation {
    /// What is sent: the envelope addresses and the message in RFC 5322 form.
    struct Envelope: Sendable, Equatable {
        var sender: String
        var recipient: String
        var message: String
    }

    /// What the handler must do next.
    enum Action: Equatable {
        /// Write this command line (the handler adds CRLF).
        case send(String)
        /// Write the message: dot-stuffed, CRLF line ends, ending with the lone ".".
        case sendMessage([UInt8])
        /// Put TLS in front of the connection; call ``tlsEstablished()`` when the handshake is done.
        case startTLS
        /// The server accepted the message: report success, then write this command (QUIT).
        case delivered(then: String)
        /// Report this failure and close.
        case fail(SMTPError)
        /// Close (after QUIT's answer).
        case close
    }

    private enum AuthStep { case plain, loginUser, loginPassword, loginDone }

    private enum State {
        case greeting
        case ehlo
        case startTLS
        case tlsHandshake
        case auth(AuthStep)
        case mailFrom
        case rcptTo
        case data
        case message
        case quit
        case finished
    }

    private let settings: SMTPSettings
    private let envelope: Envelope
    private var state = State.greeting
    private var tlsActive: Bool
    private var extensions: [String: [String]] = [:]

    init(settings: SMTPSettings, envelope: Envelope) {
        self.settings = settings
        self.envelope = envelope
        self.tlsActive = settings.security == .implicitTLS
    }

    /// What the server is expected to answer now, for timeouts and errors.
    var stage: String {
        switch state {
        case .greeting: "the greeting"
        case .ehlo: "EHLO"
        case .startTLS: "STARTTLS"
        case .tlsHandshake: "the TLS handshake"
        case .auth: "AUTH"
        case .mailFrom: "MAIL FROM"
        case .rcptTo: "RCPT TO"
        case .data: "DATA"
        case .message: "the message"
        case .quit: "QUIT"
        case .finished: "nothing"
        }
    }

    /// Whether the message was accepted (what comes after, QUIT, does not matter).
    var isDelivered: Bool {
        switch state {
        case .quit, .finished: true
        default: false
        }
    }

    /// The next step after a reply from the server.
    mutating func receive(_ reply: SMTPReply) -> Action {
        switch state {
        case .greeting:
            guard reply.code == 220 else { return fail(.reply(reply, to: stage)) }
            state = .ehlo
            return .send("EHLO \(settings.ehloName)")
        case .ehlo:
            guard reply.code == 250 else { return fail(.reply(reply, to: stage)) }
            extensions = reply.extensions
            return afterEHLO()
        case .startTLS:
            guard reply.code == 220 else { return fail(.reply(reply, to: stage)) }
            state = .tlsHandshake
            return .startTLS
        case .tlsHandshake:
            return fail(.protocolViolation("a reply arrived during the TLS handshake"))
        case .auth(let step):
            return authenticate(step, reply)
        case .mailFrom:
            guard reply.code == 250 else { return fail(.reply(reply, to: stage)) }
            state = .rcptTo
            return .send("RCPT TO:<\(envelope.recipient)>")
        case .rcptTo:
            guard reply.code == 250 || reply.code == 251 else { return fail(.reply(reply, to: stage)) }
            state = .data
            return .send("DATA")
        case .data:
            guard reply.code == 354 else { return fail(.reply(reply, to: stage)) }
            state = .message
            return .sendMessage(Self.encodeData(envelope.message))
        case .message:
            guard reply.code == 250 else { return fail(.reply(reply, to: stage)) }
            state = .quit
            return .delivered(then: "QUIT")
        case .quit, .finished:
            state = .finished
            return .close
        }
    }

    /// The next step once TLS is up after STARTTLS: EHLO again (what the server offers may change).
    mutating func tlsEstablished() -> Action {
        guard case .tlsHandshake = state else {
            return fail(.protocolViolation("TLS came up when it was not asked for"))
        }
        tlsActive = true
        state = .ehlo
        return .send("EHLO \(settings.ehloName)")
    }

    private mutating func afterEHLO() -> Action {
        if settings.security == .startTLS, !tlsActive {
            guard extensions["STARTTLS"] != nil else {
                return fail(.refused("the server does not offer STARTTLS, which the settings require"))
            }
            state = .startTLS
            return .send("STARTTLS")
        }
        guard let username = settings.username, let password = settings.password else { return mailFrom() }
        let mechanisms = extensions["AUTH"] ?? []
        if mechanisms.contains("PLAIN") {
            state = .auth(.plain)
            return .send("AUTH PLAIN \(Self.base64("\0\(username)\0\(password)"))")
        }
        if mechanisms.contains("LOGIN") {
            state = .auth(.loginUser)
            return .send("AUTH LOGIN")
        }
        return fail(.refused("the server offers no AUTH mechanism identity speaks (PLAIN, LOGIN)"))
    }

    private mutating func authenticate(_ step: AuthStep, _ reply: SMTPReply) -> Action {
        switch step {
        case .plain, .loginDone:
            guard reply.code == 235 else { return fail(.reply(reply, to: stage)) }
            return mailFrom()
        case .loginUser:
            guard reply.code == 334 else { return fail(.reply(reply, to: stage)) }
            state = .auth(.loginPassword)
            return .send(Self.base64(settings.username ?? ""))
        case .loginPassword:
            guard reply.code == 334 else { return fail(.reply(reply, to: stage)) }
            state = .auth(.loginDone)
            return .send(Self.base64(settings.password ?? ""))
        }
    }

    private mutating func mailFrom() -> Action {
        state = .mailFrom
        let body = extensions["8BITMIME"] != nil ? " BODY=8BITMIME" : ""
        return .send("MAIL FROM:<\(envelope.sender)>\(body)")
    }

    private mutating func fail(_ error: SMTPError) -> Action {
        state = .finished
        return .fail(error)
    }

    private static func base64(_ text: String) -> String {
        Data(text.utf8).base64EncodedString()
    }

    /// The DATA payload: every line ending made CRLF (a bare CR or LF never reaches the server), a line that
    /// begins with "." given another one (RFC 5321 §4.5.2), and the lone "." that ends the message.
    static func encodeData(_ message: String) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(message.utf8.count + 64)
        var atLineStart = true
        var previous: UInt8 = 0
        for byte in message.utf8 {
            if byte == UInt8(ascii: "\n"), previous == UInt8(ascii: "\r") {
                previous = byte
                continue
            }
            previous = byte
            if byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n") {
                output += [UInt8(ascii: "\r"), UInt8(ascii: "\n")]
                atLineStart = true
                continue
            }
            if atLineStart, byte == UInt8(ascii: ".") { output.append(UInt8(ascii: ".")) }
            output.append(byte)
            atLineStart = false
        }
        if !atLineStart { output += [UInt8(ascii: "\r"), UInt8(ascii: "\n")] }
        output += Array(".\r\n".utf8)
        return output
    }
}
