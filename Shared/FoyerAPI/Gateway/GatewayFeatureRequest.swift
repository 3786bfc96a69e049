public import FoyerWire
public import NIOCore

/// `gateway.checkFeature`: whether the caller's plan has the feature `feature` on.
///
/// Body: `string accessToken`, `string feature` (≤ 64 bytes, a feature name of the plans file).
public struct GatewayFeatureRequest: WireMessage, Hashable {
    public var accessToken: String
    public var feature: String

    public init(accessToken: String, feature: String) {
        self.accessToken = accessToken
        self.feature = feature
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        accessToken = try buffer.readAccessToken()
        feature = try buffer.readLengthPrefixedString("feature.name", maxBytes: GuestQuotaLimits.nameByteCountMax)
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(accessToken)
        buffer.writeLengthPrefixedString(feature)
    }
}
