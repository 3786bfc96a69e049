public import FoyerWire
public import NIOCore

/// Asks whether a guest sign-up from `source` may go ahead.
///
/// ```
/// string  source   the client's IP address as the gateway saw it, IPv4 or IPv6 text (<= 64 bytes)
/// ```
public struct AdmitSignupRequest: WireMessage, Hashable {
    public var source: String

    public init(source: String) { self.source = source }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        source = try buffer.readLengthPrefixedString(
            "admitSignup.source",
            maxBytes: GuestQuotaLimits.sourceByteCountMax
        )
    }

    public func encode(into buffer: inout ByteBuffer) { buffer.writeLengthPrefixedString(source) }
}
