public import FoyerWire
public import NIOCore

/// `linkProvider` request: a user (usually a guest) signs up with an Apple or Google ID token.
///
/// ```
/// string uid                            <= 64 bytes: the user, as authenticated by the caller
/// u8     provider                       IdentityProvider
/// string idToken                        <= 8192 bytes
/// bool   hasRawNonce, string rawNonce   <= 256 bytes
/// bool   hasAuthorizationCode,          1-1024 bytes: Sign in with Apple's authorization code (see
///        string authorizationCode       `ProviderSignInRequest`)
/// ```
public struct LinkProviderRequest: WireMessage, Hashable {
    public var uid: String
    public var provider: IdentityProvider
    public var idToken: String
    public var rawNonce: String?
    public var authorizationCode: String?

    public init(
        uid: String,
        provider: IdentityProvider,
        idToken: String,
        rawNonce: String? = nil,
        authorizationCode: String? = nil
    ) {
        self.uid = uid
        self.provider = provider
        self.idToken = idToken
        self.rawNonce = rawNonce
        self.authorizationCode = authorizationCode
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("linkProvider.uid", maxBytes: IdentityLimits.uidByteCountMax)
        provider = try buffer.readEnum(IdentityProvider.self, "linkProvider.provider")
        idToken = try buffer.readLengthPrefixedString(
            "linkProvider.idToken",
            maxBytes: IdentityLimits.idTokenByteCountMax
        )
        rawNonce = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readLengthPrefixedString("linkProvider.rawNonce", maxBytes: IdentityLimits.rawNonceByteCountMax)
        }
        authorizationCode = try buffer.readOptional { (buffer) throws(WireError) in
            let code = try buffer.readLengthPrefixedString(
                "linkProvider.authorizationCode",
                maxBytes: IdentityLimits.authorizationCodeByteCountMax
            )
            guard !code.isEmpty else { throw .invalidValue("linkProvider.authorizationCode") }
            return code
        }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(uid)
        buffer.writeInteger(provider.rawValue)
        buffer.writeLengthPrefixedString(idToken)
        buffer.writeOptional(rawNonce) { $0.writeLengthPrefixedString($1) }
        buffer.writeOptional(authorizationCode) { $0.writeLengthPrefixedString($1) }
    }
}
