import Foundation
import FoyerCrypto

/// The `webhook-signature` header of Standard Webhooks: `v1,<base64 of HMAC-SHA256 of "id.timestamp.body">` under
/// each secret, separated by spaces (two while a secret is being replaced; the receiver accepts any that verifies).
public enum WebhookSignature {
    public static func header(secrets: [[UInt8]], id: String, timestamp: Int64, body: String) -> String {
        let signed = Array("\(id).\(timestamp).\(body)".utf8)
        return secrets.map { key in
            "v1," + Data(HMACSHA256.authenticationCode(key: key, message: signed)).base64EncodedString()
        }.joined(separator: " ")
    }
}
