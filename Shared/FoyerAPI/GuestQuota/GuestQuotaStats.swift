public import FoyerWire
public import NIOCore

/// The live-guest count and its cap.
///
/// ```
/// varint  liveGuests      accounts open on the guest plan
/// varint  liveGuestsMax   the configured cap
/// ```
public struct GuestQuotaStats: WireMessage, Hashable {
    public var liveGuests: UInt64
    public var liveGuestsMax: UInt64

    public init(liveGuests: UInt64, liveGuestsMax: UInt64) {
        self.liveGuests = liveGuests
        self.liveGuestsMax = liveGuestsMax
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        liveGuests = try buffer.readVarint()
        liveGuestsMax = try buffer.readVarint()
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeVarint(liveGuests)
        buffer.writeVarint(liveGuestsMax)
    }
}
