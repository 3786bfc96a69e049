public import FoyerWire
public import NIOCore

/// `listStuckAccounts` request.
///
/// ```
/// u64 olderThanSeconds   users whose merge or deletion began longer ago than this
/// u32 limit              1–1000
/// ```
public struct ListStuckAccountsRequest: WireMessage, Hashable {
    public var olderThanSeconds: UInt64
    public var limit: UInt32

    public init(olderThanSeconds: UInt64, limit: UInt32 = 100) {
        self.olderThanSeconds = olderThanSeconds
        self.limit = limit
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        olderThanSeconds = try buffer.readWire()
        limit = try buffer.readWire()
        guard (1...UInt32(IdentityLimits.listCountMax)).contains(limit) else { throw .invalidValue("stuck.limit") }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeInteger(olderThanSeconds)
        buffer.writeInteger(limit)
    }
}
