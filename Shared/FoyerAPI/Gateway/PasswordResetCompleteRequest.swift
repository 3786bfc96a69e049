public import FoyerWire
public import NIOCore

/// `completePasswordReset`:
/// ```
/// string          token         <= 128 bytes: from the email
/// optional bytes  verifier      1–128 bytes: the secret whose SHA-256 was the challenge, if one was given
/// string          newPassword   <= 1024 bytes
/// ```
public struct PasswordResetCompleteRequest: WireMessage, Hashable {
    public var token: String
    public var verifier: [UInt8]?
    public var newPassword: String

    public init(token: String, verifier: [UInt8]?, newPassword: String) {
        self.token = token
        self.verifier = verifier
        self.newPassword = newPassword
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
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(token)
        buffer.writeOptional(verifier) { $0.writeLengthPrefixedBytes($1) }
        buffer.writeLengthPrefixedString(newPassword)
    }
}
