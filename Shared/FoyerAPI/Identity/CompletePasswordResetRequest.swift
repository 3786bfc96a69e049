public import FoyerWire
public import NIOCore

/// `completePasswordReset` request.
///
/// ```
/// string token                           <= 128 bytes: from the email
/// bool   hasVerifier, bytes verifier     1–128 bytes: the secret whose SHA-256 was the challenge (required when
///                                        the reset was asked for with a challenge, ignored otherwise)
/// string newPassword                     <= 1024 bytes (the policy's own limit is lower, checked before hashing)
/// string source                          <= 64 bytes: the client's address as the gateway saw it
/// ```
public struct CompletePasswordResetRequest: WireMessage, Hashable {
    public var token: String
    public var verifier: [UInt8]?
    public var newPassword: String
    public var source: String

    public init(token: String, verifier: [UInt8]? = nil, newPassword: String, source: String = "") {
        self.token = token
        self.verifier = verifier
        self.newPassword = newPassword
        self.source = source
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        token = try buffer.readLengthPrefixedString(
            "passwordReset.token",
            maxBytes: IdentityLimits.secretTokenByteCountMax
        )
        verifier = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readVerifier("passwordReset.verifier")
        }
        newPassword = try buffer.readPassword("passwordReset.newPassword")
        source = try buffer.readLengthPrefixedString(
            "passwordReset.source",
            maxBytes: IdentityLimits.sourceByteCountMax
        )
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(token)
        buffer.writeOptional(verifier) { $0.writeLengthPrefixedBytes($1) }
        buffer.writeLengthPrefixedString(newPassword)
        buffer.writeLengthPrefixedString(source)
    }
}
