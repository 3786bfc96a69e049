public import FoyerWire
public import NIOCore

/// `listUsers` response.
///
/// ```
/// list of UserSummary users       <= 1000, in the order asked for
/// bool hasNext, UserCursor next   the cursor for the next page; absent when this page was the last
/// ```
public struct UserSummaries: WireMessage, Hashable {
    public var users: [UserSummary]
    public var next: UserCursor?

    public init(users: [UserSummary], next: UserCursor?) {
        self.users = users
        self.next = next
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        let count = try buffer.readCount("users.users", maxCount: IdentityLimits.listCountMax, minElementBytes: 21)
        var users: [UserSummary] = []
        users.reserveCapacity(count)
        for _ in 0..<count { users.append(try UserSummary(from: &buffer)) }
        self.users = users
        next = try buffer.readOptional { (buffer) throws(WireError) in try UserCursor(from: &buffer) }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeVarint(UInt64(users.count))
        for user in users { user.encode(into: &buffer) }
        buffer.writeOptional(next) { $1.encode(into: &$0) }
    }
}
