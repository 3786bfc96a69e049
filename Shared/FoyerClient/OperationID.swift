import FoyerBase64URL

/// Idempotency keys and operation ids: 128 random bits as base64url (22 characters).
///
/// The client makes a new one for each guest sign-in, write, link, resolve, deletion and sign-out, and sends the
/// same one again when the RPC runtime retries the call, so a retry after a lost answer has the effect of one
/// call. Callers that retry on their own (after a crash, from a job queue) pass the id they used the first time.
public enum OperationID {
    /// A new unguessable id.
    public static func make() -> String {
        Base64URL.encode(secureRandomBytes(count: 16))
    }
}

/// `count` bytes from the standard library's CSPRNG (`SystemRandomNumberGenerator`, cryptographically secure on
/// every platform Swift runs on), for ids, verifiers and nonces.
func secureRandomBytes(count: Int) -> [UInt8] {
    var generator = SystemRandomNumberGenerator()
    return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
}
