/// Why an SMTP submission failed, and whether trying again later may help. Carries reply codes but never a
/// reply's text, the message or a credential (a server's text may quote the recipient's address).
struct SMTPError: Error, CustomStringConvertible, Equatable {
    private enum Code: Equatable {
        case transientReply, permanentReply, unexpectedReply, timeout, connection, tls, protocolViolation, refused
    }

    private let code: Code
    let description: String

    private init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    /// Whether another attempt may succeed: 4xx replies, lost or refused connections, timeouts.
    var isTransient: Bool {
        switch code {
        case .transientReply, .timeout, .connection: true
        case .permanentReply, .unexpectedReply, .tls, .protocolViolation, .refused: false
        }
    }

    /// A failure reply: 4xx is transient, 5xx permanent; any other code where it does not belong is permanent.
    static func reply(_ reply: SMTPReply, to stage: String) -> SMTPError {
        if reply.isTransientFailure {
            return SMTPError(.transientReply, "the SMTP server answered \(reply.summary) to \(stage); try again later")
        }
        if (500..<600).contains(reply.code) {
            return SMTPError(.permanentReply, "the SMTP server refused \(stage) with \(reply.summary)")
        }
        return SMTPError(
            .unexpectedReply,
            "the SMTP server answered \(reply.summary) to \(stage), which was unexpected"
        )
    }

    /// The server did not answer in time.
    static func timeout(_ stage: String) -> SMTPError {
        SMTPError(.timeout, "the SMTP server did not answer \(stage) in time")
    }

    /// The connection could not be opened, or closed before the message was accepted.
    static func connection(_ detail: String) -> SMTPError {
        SMTPError(.connection, "SMTP connection failed: \(detail)")
    }

    /// TLS failed (an untrusted or mismatched certificate, no common protocol); retrying will not fix it.
    static func tls(_ detail: String) -> SMTPError {
        SMTPError(.tls, "SMTP TLS failed: \(detail)")
    }

    /// The server broke the protocol (a malformed reply, data after the reply to STARTTLS).
    static func protocolViolation(_ detail: String) -> SMTPError {
        SMTPError(.protocolViolation, "SMTP protocol error: \(detail)")
    }

    /// The server lacks what the settings require (STARTTLS, an AUTH mechanism we speak), or the message cannot be
    /// submitted as it is.
    static func refused(_ detail: String) -> SMTPError {
        SMTPError(.refused, "SMTP submission impossible: \(detail)")
    }

    static func == (lhs: SMTPError, rhs: SMTPError) -> Bool { lhs.code == rhs.code }
}
