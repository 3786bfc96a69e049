public import FoyerWire
public import NIOCore

/// Asks whether the plan of `uid` allows `feature`.
///
/// ```
/// string  uid       <= 64 bytes
/// string  feature   <= 64 bytes
/// ```
public struct FeatureCheckRequest: WireMessage, Hashable {
    public var uid: String
    public var feature: String

    public init(uid: String, feature: String) {
        self.uid = uid
        self.feature = feature
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("feature.uid", maxBytes: GuestQuotaLimits.uidByteCountMax)
        feature = try buffer.readLengthPrefixedString("feature.name", maxBytes: GuestQuotaLimits.nameByteCountMax)
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(uid)
        buffer.writeLengthPrefixedString(feature)
    }
}
