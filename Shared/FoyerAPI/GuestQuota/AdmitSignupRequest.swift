public import FoyerWire
public import NIOCore

/// Asks whether a guest sign-up from `source` may go ahead and, with `uid`, opens the guest's quota account in the
/// same transaction.
///
/// ```
/// string  source          the client's IP address as the gateway saw it, IPv4 or IPv6 text (<= 64 bytes)
/// bool    hasUID, string uid   (<= 64 bytes) the uid the guest will be created under: its account opens on the
///                         guest plan, taking its place under the live-guest cap (an account the uid already has
///                         stays as it is)
/// ```
public struct AdmitSignupRequest: WireMessage, Hashable {
    public var source: String
    public var uid: String?

    public init(source: String, uid: String? = nil) {
        self.source = source
        self.uid = uid
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        source = try buffer.readLengthPrefixedString(
            "admitSignup.source",
            maxBytes: GuestQuotaLimits.sourceByteCountMax
        )
        uid = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readLengthPrefixedString("admitSignup.uid", maxBytes: GuestQuotaLimits.uidByteCountMax)
        }
        if uid?.isEmpty == true { throw .invalidValue("admitSignup.uid") }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(source)
        buffer.writeOptional(uid) { $0.writeLengthPrefixedString($1) }
    }
}
