public import FoyerWire
public import NIOCore

/// `listAdminActions` response.
///
/// ```
/// list of AdminActionRecord actions   <= 1000, newest first
/// bool hasNext, u64 next              the `before` of the next page; absent when this page was the last
/// ```
public struct AdminActions: WireMessage, Hashable {
    public var actions: [AdminActionRecord]
    public var next: UInt64?

    public init(actions: [AdminActionRecord], next: UInt64?) {
        self.actions = actions
        self.next = next
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        let count = try buffer.readCount(
            "adminActions.actions",
            maxCount: IdentityLimits.listCountMax,
            minElementBytes: 21
        )
        var actions: [AdminActionRecord] = []
        actions.reserveCapacity(count)
        for _ in 0..<count { actions.append(try AdminActionRecord(from: &buffer)) }
        self.actions = actions
        next = try buffer.readOptional { (buffer) throws(WireError) in try buffer.readWire(UInt64.self) }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeVarint(UInt64(actions.count))
        for action in actions { action.encode(into: &buffer) }
        buffer.writeOptional(next) { $0.writeInteger($1) }
    }
}
