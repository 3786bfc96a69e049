public import FoyerWire
public import NIOCore

/// `createGuest` request.
///
/// ```
/// string idempotencyKey   16–128 bytes; an unguessable value chosen per sign-in attempt (e.g. 128 random bits)
/// ```
///
/// The key is a secret: whoever repeats it within the window gets a session for the same guest. Identity
/// stores only its SHA-256.
public struct CreateGuestRequest: WireMessage, Hashable {
    /// Keys shorter than this are refused (`invalid-argument`): they could be guessed.
    public static let idempotencyKeyByteCountMin = 16

    public var idempotencyKey: String

    public init(idempotencyKey: String) {
        self.idempotencyKey = idempotencyKey
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        idempotencyKey = try buffer.readLengthPrefixedString(
            "createGuest.idempotencyKey",
            maxBytes: IdentityLimits.idempotencyKeyByteCountMax
        )
        guard idempotencyKey.utf8.count >= Self.idempotencyKeyByteCountMin else {
            throw .invalidValue("createGuest.idempotencyKey")
        }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(idempotencyKey)
    }
}
