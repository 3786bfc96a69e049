public import FoyerWire
public import NIOCore

/// A request that only identifies the caller: `string accessToken` (<= 4096 bytes).
public struct AuthenticatedRequest: WireMessage, Hashable {
    public var accessToken: String

    public init(accessToken: String) { self.accessToken = accessToken }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        accessToken = try buffer.readAccessToken()
    }

    public func encode(into buffer: inout ByteBuffer) { buffer.writeLengthPrefixedString(accessToken) }
}
