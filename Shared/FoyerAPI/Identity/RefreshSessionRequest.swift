public import FoyerWire
public import NIOCore

/// `refreshSession` request.
///
/// ```
/// string refreshToken   <= 128 bytes
/// ```
public struct RefreshSessionRequest: WireMessage, Hashable {
    public var refreshToken: String

    public init(refreshToken: String) {
        self.refreshToken = refreshToken
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        refreshToken = try buffer.readLengthPrefixedString(
            "refresh.refreshToken",
            maxBytes: IdentityLimits.secretTokenByteCountMax
        )
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(refreshToken)
    }
}
