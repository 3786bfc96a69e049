public import FoyerWire
public import NIOCore

/// `guestSignIn`:
/// ```
/// string          idempotencyKey   as identity's `CreateGuestRequest` (22–128 base64url characters carrying 128
///                                  random bits; identity refuses others with `invalid-argument`); the same key
///                                  returns the same guest
/// optional string loadTestSource   <= 64 bytes: an address for sign-up admission to count instead of the
///                                  socket's; honoured only by a gateway started with `--load-test-sources`
/// ```
public struct GuestSignInRequest: WireMessage, Hashable {
    public var idempotencyKey: String
    public var loadTestSource: String?

    public init(idempotencyKey: String, loadTestSource: String? = nil) {
        self.idempotencyKey = idempotencyKey
        self.loadTestSource = loadTestSource
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        idempotencyKey = try buffer.readOperationID()
        loadTestSource = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readLengthPrefixedString("guestSignIn.loadTestSource", maxBytes: 64)
        }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(idempotencyKey)
        buffer.writeOptional(loadTestSource) { $0.writeLengthPrefixedString($1) }
    }
}
