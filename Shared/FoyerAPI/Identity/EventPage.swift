public import FoyerWire
public import NIOCore

/// `listEvents` answer: events newest first, and where the next page starts.
///
/// ```
/// list EventInfo   events   <= 500
/// bool hasNext, u64 next    the `before` of the next page; absent on the last page
/// ```
public struct EventPage: WireMessage, Hashable {
    public var events: [EventInfo]
    public var next: UInt64?

    public init(events: [EventInfo], next: UInt64? = nil) {
        self.events = events
        self.next = next
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        let count = try buffer.readCount("events.count", maxCount: EventLimits.pageCountMax, minElementBytes: 40)
        var events: [EventInfo] = []
        events.reserveCapacity(count)
        for _ in 0..<count { events.append(try EventInfo(from: &buffer)) }
        self.events = events
        next = try buffer.readOptional { (buffer) throws(WireError) in try buffer.readWire(UInt64.self) }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeVarint(UInt64(events.count))
        for event in events { event.encode(into: &buffer) }
        buffer.writeOptional(next) { $0.writeInteger($1) }
    }
}
