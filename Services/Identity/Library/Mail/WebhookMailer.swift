import Foundation
import FoyerCrypto

/// Delivers as an HTTP POST of JSON `{"id","from","to","subject","text"}` to a URL; any 2xx is success. With a
/// secret, the header `X-Foyer-Signature: sha256=<hex HMAC-SHA-256 of the body>` lets the receiver check the
/// sender.
struct WebhookMailer: Mailer {
    let url: URL
    let secret: String?
    let http: any HTTPClient
    let timeout: Duration

    private struct Payload: Encodable {
        var id: String
        var from: String
        var to: String
        var subject: String
        var text: String
    }

    func send(_ message: MailMessage) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let body = Array(
            try encoder.encode(
                Payload(
                    id: message.id,
                    from: message.sender,
                    to: message.recipient,
                    subject: message.subject,
                    text: message.body
                )
            )
        )
        var headers = ["Content-Type": "application/json"]
        if let secret {
            let code = HMACSHA256.authenticationCode(key: Array(secret.utf8), message: body)
            headers["X-Foyer-Signature"] = "sha256=" + Identifiers.hex(code)
        }
        let response = try await http.post(url, body: body, headers: headers, timeout: timeout)
        guard (200..<300).contains(response.status) else {
            throw MailerError("the mail webhook answered HTTP \(response.status)")
        }
    }
}
