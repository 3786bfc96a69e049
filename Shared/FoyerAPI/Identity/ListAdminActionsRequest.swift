public import FoyerWire
public import NIOCore

/// `listAdminActions` request: one page of the audit log, newest first.
///
/// ```
/// bool hasBefore, u64 before   only entries with a smaller id (the previous page's `next`)
/// u32  limit                   1–1000
/// ```
public struct ListAdminActionsRequest: WireMessage, Hashable {
    public var before: UInt64?
    public var limit: UInt32

    public init(before: UInt64? = nil, limit: UInt32 = 100) {
        self.before = before
        self.limit = limit
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        before = try buffer.readOptional { (buffer) throws(WireError) in try buffer.readWire(UInt64.self) }
        limit = try buffer.readWire()
        guard (1...UInt32(IdentityLimits.listCountMax)).contains(limit) else {
            throw .invalidValue("adminActions.limit")
        }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeOptional(before) { $0.writeInteger($1) }
        buffer.writeInteger(limit)
    }
}
