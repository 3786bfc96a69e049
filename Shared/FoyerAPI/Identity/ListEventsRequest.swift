public import FoyerWire
public import NIOCore

/// `listEvents` request: one page of events, newest first, of one user and/or in one state.
///
/// ```
/// bool hasUID, string uid        <= 64 bytes: only this user's events
/// bool hasState, u8 state        only events in this state (0 pending, 1 delivered, 2 failed)
/// bool hasBefore, u64 before     only events with a smaller position (the previous page's `next`)
/// u32  limit                     1–500
/// ```
public struct ListEventsRequest: WireMessage, Hashable {
    public var uid: String?
    public var state: EventState?
    public var before: UInt64?
    public var limit: UInt32

    public init(uid: String? = nil, state: EventState? = nil, before: UInt64? = nil, limit: UInt32 = 100) {
        self.uid = uid
        self.state = state
        self.before = before
        self.limit = limit
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readLengthPrefixedString("events.uid", maxBytes: IdentityLimits.uidByteCountMax)
        }
        state = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readEnum(EventState.self, "events.state")
        }
        before = try buffer.readOptional { (buffer) throws(WireError) in try buffer.readWire(UInt64.self) }
        limit = try buffer.readWire()
        guard (1...UInt32(EventLimits.pageCountMax)).contains(limit) else { throw .invalidValue("events.limit") }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeOptional(uid) { $0.writeLengthPrefixedString($1) }
        buffer.writeOptional(state) { $0.writeInteger($1.rawValue) }
        buffer.writeOptional(before) { $0.writeInteger($1) }
        buffer.writeInteger(limit)
    }
}
