public import FoyerWire
public import NIOCore

/// `listUsers` request: one page of users of a kind, by creation or by last activity, oldest or newest first; ties on
/// the time are ordered by uid (in the same direction).
///
/// ```
/// u8   kind                        UserKind: 0 guests, 1 members, 2 all
/// u8   order                       UserOrder: 0 createdAt, 1 lastActivity
/// bool newestFirst
/// u32  limit                       1–1000
/// bool hasAfter, UserCursor after  the previous page's `next`
/// ```
public struct ListUsersRequest: WireMessage, Hashable {
    public var kind: UserKind
    public var order: UserOrder
    public var newestFirst: Bool
    public var limit: UInt32
    public var after: UserCursor?

    public init(
        kind: UserKind = .all,
        order: UserOrder = .createdAt,
        newestFirst: Bool = true,
        limit: UInt32 = 100,
        after: UserCursor? = nil
    ) {
        self.kind = kind
        self.order = order
        self.newestFirst = newestFirst
        self.limit = limit
        self.after = after
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        kind = try buffer.readEnum(UserKind.self, "listUsers.kind")
        order = try buffer.readEnum(UserOrder.self, "listUsers.order")
        newestFirst = try buffer.readBool()
        limit = try buffer.readWire()
        guard (1...UInt32(IdentityLimits.listCountMax)).contains(limit) else { throw .invalidValue("listUsers.limit") }
        after = try buffer.readOptional { (buffer) throws(WireError) in try UserCursor(from: &buffer) }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeInteger(kind.rawValue)
        buffer.writeInteger(order.rawValue)
        buffer.writeBool(newestFirst)
        buffer.writeInteger(limit)
        buffer.writeOptional(after) { $1.encode(into: &$0) }
    }
}
