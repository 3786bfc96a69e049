public import FoyerWire
public import NIOCore

/// `unlinkCredential`:
/// ```
/// string  accessToken   <= 4096 bytes: a member's, from a recent sign-in
/// u8      credential    CredentialKind: 0 email (with its password), 1 apple, 2 google
/// ```
public struct UnlinkRequest: WireMessage, Hashable {
    public var accessToken: String
    public var credential: CredentialKind

    public init(accessToken: String, credential: CredentialKind) {
        self.accessToken = accessToken
        self.credential = credential
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        accessToken = try buffer.readAccessToken()
        credential = try buffer.readEnum(CredentialKind.self, "unlink.credential")
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(accessToken)
        buffer.writeInteger(credential.rawValue)
    }
}
