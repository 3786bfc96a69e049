public import FoyerWire
public import NIOCore

/// `signInWithProvider` request.
///
/// ```
/// u8     provider                       IdentityProvider: 1 apple, 2 google
/// string idToken                        <= 8192 bytes: the provider's ID token (a JWS, RS256 or ES256)
/// bool   hasRawNonce, string rawNonce   <= 256 bytes: the nonce before hashing; the token's `nonce` claim must be
///                                       its SHA-256 in lowercase hex, and be present exactly when this is
/// bool   hasAuthorizationCode,          1-1024 bytes: Sign in with Apple's authorization code, exchanged for a
///        string authorizationCode       refresh token that is revoked when the account is deleted (ignored for
///                                       Google, and when identity has no Apple client-secret settings)
/// ```
public struct ProviderSignInRequest: WireMessage, Hashable {
    public var provider: IdentityProvider
    public var idToken: String
    public var rawNonce: String?
    public var authorizationCode: String?

    public init(provider: IdentityProvider, idToken: String, rawNonce: String? = nil, authorizationCode: String? = nil)
    {
        self.provider = provider
        self.idToken = idToken
        self.rawNonce = rawNonce
        self.authorizationCode = authorizationCode
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        provider = try buffer.readEnum(IdentityProvider.self, "provider.provider")
        idToken = try buffer.readLengthPrefixedString("provider.idToken", maxBytes: IdentityLimits.idTokenByteCountMax)
        rawNonce = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readLengthPrefixedString("provider.rawNonce", maxBytes: IdentityLimits.rawNonceByteCountMax)
        }
        authorizationCode = try buffer.readOptional { (buffer) throws(WireError) in
            let code = try buffer.readLengthPrefixedString(
                "provider.authorizationCode",
                maxBytes: IdentityLimits.authorizationCodeByteCountMax
            )
            guard !code.isEmpty else { throw .invalidValue("provider.authorizationCode") }
            return code
        }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeInteger(provider.rawValue)
        buffer.writeLengthPrefixedString(idToken)
        buffer.writeOptional(rawNonce) { $0.writeLengthPrefixedString($1) }
        buffer.writeOptional(authorizationCode) { $0.writeLengthPrefixedString($1) }
    }
}
