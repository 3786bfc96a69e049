public import FoyerWire
public import NIOCore

/// `verifyAccessToken` request.
///
/// ```
/// string accessToken   <= 4096 bytes
/// u8     requirement   TokenRequirement: 0 any, 1 member, 2 guest, 3 guest or a member's recent sign-in
/// ```
public struct VerifyAccessTokenRequest: WireMessage, Hashable {
    public var accessToken: String
    public var requirement: TokenRequirement

    public init(accessToken: String, requirement: TokenRequirement = .any) {
        self.accessToken = accessToken
        self.requirement = requirement
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        accessToken = try buffer.readLengthPrefixedString(
            "verify.accessToken",
            maxBytes: IdentityLimits.accessTokenByteCountMax
        )
        requirement = try buffer.readEnum(TokenRequirement.self, "verify.requirement")
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(accessToken)
        buffer.writeInteger(requirement.rawValue)
    }
}
