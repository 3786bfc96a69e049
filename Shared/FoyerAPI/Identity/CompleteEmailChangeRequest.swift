public import FoyerWire
public import NIOCore

/// `completeEmailChange` request (identity's, and the gateway's `completeEmailChange` body, which is the same).
///
/// ```
/// string token                        <= 128 bytes: from the email sent to the new address
/// bool   hasVerifier, bytes verifier  1–128 bytes: the secret whose SHA-256 was the challenge (needed when the
///                                     change was asked for with one)
/// ```
public struct CompleteEmailChangeRequest: WireMessage, Hashable {
    public var token: String
    public var verifier: [UInt8]?

    public init(token: String, verifier: [UInt8]? = nil) {
        self.token = token
        self.verifier = verifier
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        token = try buffer.readLengthPrefixedString(
            "emailChange.token",
            maxBytes: IdentityLimits.secretTokenByteCountMax
        )
        verifier = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readVerifier("emailChange.verifier")
        }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(token)
        buffer.writeOptional(verifier) { $0.writeLengthPrefixedBytes($1) }
    }
}
