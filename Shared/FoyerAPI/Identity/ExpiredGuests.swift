public import FoyerWire
public import NIOCore

/// `listExpiredGuests` response.
///
/// ```
/// list of ExpiredGuest guests       <= 1000, oldest activity first
/// bool hasNext, ExpiredGuest next   the cursor for the next page; absent when this page was the last
/// ```
public struct ExpiredGuests: WireMessage, Hashable {
    public var guests: [ExpiredGuest]
    public var next: ExpiredGuest?

    public init(guests: [ExpiredGuest], next: ExpiredGuest?) {
        self.guests = guests
        self.next = next
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        let count = try buffer.readCount("expired.guests", maxCount: IdentityLimits.listCountMax, minElementBytes: 9)
        var guests: [ExpiredGuest] = []
        guests.reserveCapacity(count)
        for _ in 0..<count { guests.append(try ExpiredGuest(from: &buffer)) }
        self.guests = guests
        next = try buffer.readOptional { (buffer) throws(WireError) in try ExpiredGuest(from: &buffer) }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeVarint(UInt64(guests.count))
        for guest in guests { guest.encode(into: &buffer) }
        buffer.writeOptional(next) { $1.encode(into: &$0) }
    }
}
