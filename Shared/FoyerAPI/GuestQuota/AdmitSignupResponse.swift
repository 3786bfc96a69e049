public import FoyerWire
public import NIOCore

/// The sign-up may go ahead; one token of the source's bucket was taken.
///
/// ```
/// varint  remainingForSource   whole sign-ups the source has left right now
/// varint  liveGuests           guests open now
/// varint  liveGuestsMax        the cap
/// ```
public struct AdmitSignupResponse: WireMessage, Hashable {
    public var remainingForSource: UInt64
    public var liveGuests: UInt64
    public var liveGuestsMax: UInt64

    public init(remainingForSource: UInt64, liveGuests: UInt64, liveGuestsMax: UInt64) {
        self.remainingForSource = remainingForSource
        self.liveGuests = liveGuests
        self.liveGuestsMax = liveGuestsMax
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        remainingForSource = try buffer.readVarint()
        liveGuests = try buffer.readVarint()
        liveGuestsMax = try buffer.readVarint()
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeVarint(remainingForSource)
        buffer.writeVarint(liveGuests)
        buffer.writeVarint(liveGuestsMax)
    }
}
