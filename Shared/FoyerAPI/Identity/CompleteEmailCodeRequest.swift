public import FoyerWire
public import NIOCore

/// `completeEmailCode` request: the code from a sign-in or link email, redeemed with the address instead of the
/// link's token and verifier.
///
/// ```
/// string email                <= 320 bytes: the address the code was sent to
/// string code                 exactly 6 ASCII digits (`EmailCode`)
/// bool   hasUID, string uid   <= 64 bytes: for a `link` code, the user completing it (must be the one that asked
///                             for it); absent for `signIn`
/// ```
public struct CompleteEmailCodeRequest: WireMessage, Hashable {
    public var email: String
    public var code: String
    public var uid: String?

    public init(email: String, code: String, uid: String? = nil) {
        self.email = email
        self.code = code
        self.uid = uid
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        email = try buffer.readLengthPrefixedString("emailCode.email", maxBytes: IdentityLimits.emailByteCountMax)
        code = try buffer.readLengthPrefixedString("emailCode.code", maxBytes: EmailCode.digitCount)
        guard EmailCode.isWellFormed(code) else { throw .invalidValue("emailCode.code") }
        uid = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readLengthPrefixedString("emailCode.uid", maxBytes: IdentityLimits.uidByteCountMax)
        }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(email)
        buffer.writeLengthPrefixedString(code)
        buffer.writeOptional(uid) { $0.writeLengthPrefixedString($1) }
    }
}
