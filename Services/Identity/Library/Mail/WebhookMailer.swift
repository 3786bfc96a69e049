import Foundation
import FoyerCrypto
import FoyerWebhooks

/// Delivers as an HTTP POST of JSON `{"id","from","to","subject","text"}` to a URL; any 2xx is success. Signed as
/// the events are (Standard Webhooks): `webhook-id` (the message id), `webhook-timestamp` (seconds since the epoch)
/// and `webhook-signature` (`v1,` then the base64 HMAC-SHA256 of `id.timestamp.body` under the secret's UTF-8
/// bytes), so a receiver refuses a forged POST and, by the timestamp, a replayed one.
struct WebhookMailer: Mailer {
    let url: URL
    let secret: String
    let http: any HTTPClient
    let timeout: Duration
    let now: @Sendable () -> Date

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
        let timestamp = now().epochSeconds
        let headers = [
            "Content-Type": "application/json",
            "webhook-id": message.id,
            "webhook-timestamp": String(timestamp),
            "webhook-signature": WebhookSignature.header(
                secrets: [Array(secret.utf8)],
                id: message.id,
                timestamp: timestamp,
                body: String(decoding: body, as: UTF8.self)
            ),
        ]
        let response = try await http.post(url, body: body, headers: headers, timeout: timeout)
        guard (200..<300).contains(response.status) else {
            throw MailerError("the mail webhook answered HTTP \(response.status)")
        }
    }
}
