public import FoyerWire
public import NIOCore

/// `completeEmailLink` request.
///
/// ```
/// string token                <= 128 bytes: from the email
/// bytes  verifier             1–128 bytes: the secret whose SHA-256 was the challenge
/// bool   hasUID, string uid   <= 64 bytes: for a `link` token, the user completing it (must be the one that
///                             started it); absent for `signIn`
/// ```
public struct CompleteEmailLinkRequest: WireMessage, Hashable {
    public var token: String
    public var verifier: [UInt8]
    public var uid: String?

    public init(token: String, verifier: [UInt8], uid: String? = nil) {
        self.token = token
        self.verifier = verifier
        self.uid = uid
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        token = try buffer.readLengthPrefixedString(
            "emailLink.token",
            maxBytes: IdentityLimits.secretTokenByteCountMax
        )
        verifier = try buffer.readLengthPrefixedBytes(
            "emailLink.verifier",
            maxBytes: IdentityLimits.verifierByteCountMax
        )
        guard !verifier.isEmpty else { throw .invalidValue("emailLink.verifier") }
        uid = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readLengthPrefixedString("emailLink.uid", maxBytes: IdentityLimits.uidByteCountMax)
        }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(token)
        buffer.writeLengthPrefixedBytes(verifier)
        buffer.writeOptional(uid) { $0.writeLengthPrefixedString($1) }
    }
}
