import FoyerCrypto

/// Idempotency keys and operation ids: 128 random bits as base64url (22 characters).
///
/// The client makes a new one for each guest sign-in, write, link, resolve, deletion and sign-out, and sends the
/// same one again when the RPC runtime retries the call, so a retry after a lost answer has the effect of one
/// call. Callers that retry on their own (after a crash, from a job queue) pass the id they used the first time.
public enum OperationID {
    /// A new unguessable id.
    public static func make() -> String {
        Base64URL.encode(SecureRandom.bytes(count: 16))
    }
}
