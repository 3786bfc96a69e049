public import FoyerWire
public import NIOCore

/// `listExpiredGuests` request: one page of active guests idle since before a cutoff, oldest first.
///
/// ```
/// u64  idleBeforeMilliseconds        the cutoff (since the Unix epoch)
/// u32  limit                         1–1000
/// bool hasAfter, ExpiredGuest after  the cursor: the last guest of the previous page (its `next`)
/// ```
public struct ListExpiredGuestsRequest: WireMessage, Hashable {
    public var idleBeforeMilliseconds: UInt64
    public var limit: UInt32
    public var after: ExpiredGuest?

    public init(idleBeforeMilliseconds: UInt64, limit: UInt32 = 100, after: ExpiredGuest? = nil) {
        self.idleBeforeMilliseconds = idleBeforeMilliseconds
        self.limit = limit
        self.after = after
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        idleBeforeMilliseconds = try buffer.readWire()
        limit = try buffer.readWire()
        guard (1...UInt32(IdentityLimits.listCountMax)).contains(limit) else { throw .invalidValue("expired.limit") }
        after = try buffer.readOptional { (buffer) throws(WireError) in try ExpiredGuest(from: &buffer) }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeInteger(idleBeforeMilliseconds)
        buffer.writeInteger(limit)
        buffer.writeOptional(after) { $1.encode(into: &$0) }
    }
}
