public import FoyerWire
public import NIOCore

/// `startPasswordReset`:
/// ```
/// string          email               <= 320 bytes
/// optional bytes  verifierChallenge   exactly 32 bytes: SHA-256 of a secret the client keeps; when given,
///                                     completing the reset needs that secret (the link works only in this app)
/// ```
public struct PasswordResetStartRequest: WireMessage, Hashable {
    public var email: String
    public var verifierChallenge: [UInt8]?

    public init(email: String, verifierChallenge: [UInt8]?) {
        self.email = email
        self.verifierChallenge = verifierChallenge
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        email = try buffer.readLengthPrefixedString("passwordReset.email", maxBytes: IdentityLimits.emailByteCountMax)
        verifierChallenge = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readVerifierChallenge("passwordReset.verifierChallenge")
        }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(email)
        buffer.writeOptional(verifierChallenge) { $0.writeLengthPrefixedBytes($1) }
    }
}
