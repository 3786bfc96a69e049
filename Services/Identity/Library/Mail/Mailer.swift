import Foundation

/// An email to send: a sign-in or link message with its token inside.
struct MailMessage: Sendable, Equatable {
    var id: String
    var sender: String
    var recipient: String
    var subject: String
    /// Plain text.
    var body: String

    /// The message in RFC 5322 form (for sendmail). The recipient was validated (no CR, LF or angle brackets),
    /// and the other header values come from configuration.
    var rfc5322: String {
        [
            "From: \(Self.headerValue(sender))",
            "To: \(Self.headerValue(recipient))",
            "Subject: \(Self.headerValue(subject))",
            "Message-ID: <\(id)@foyer.identity>",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: 8bit",
            "",
            body,
        ].joined(separator: "\r\n") + "\r\n"
    }

    /// A header value with line breaks removed, so configuration cannot inject headers by mistake.
    private static func headerValue(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0 != "\r" && $0 != "\n" })
    }
}

/// Delivers mail outside the database (an SMTP server, a program, a webhook). The outbox is not one of these: it
/// writes in the transaction that creates the token (see `MailDelivery`).
protocol Mailer: Sendable {
    func send(_ message: MailMessage) async throws
}

/// Where email links go.
enum MailDelivery: Sendable {
    /// Nowhere: no mailer is configured, so email links are refused with `mail-unavailable` before anything is
    /// stored.
    case unavailable
    /// Into `identity_outbox`, in the same transaction as the token (local mode only).
    case outbox(OutboxMailer)
    /// Through a mailer, after the token is committed; a failure deletes the token again.
    case external(any Mailer)
}

/// A mailer failure (exit status, HTTP status, timeout). Never carries the message, which holds a token.
struct MailerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
