public import FoyerWire
public import NIOCore

/// `userCounts` response: how many users identity holds, by kind and state.
///
/// ```
/// u64 guests             anonymous users in state active
/// u64 members            permanent users in state active
/// u64 createdSince       users of any kind and state, still present, created at or after the request's time
/// u64 pendingDeletions   users in state deleting
/// u64 pendingMerges      users in state merging
/// ```
public struct UserCounts: WireMessage, Hashable {
    public var guests: UInt64
    public var members: UInt64
    public var createdSince: UInt64
    public var pendingDeletions: UInt64
    public var pendingMerges: UInt64

    public init(guests: UInt64, members: UInt64, createdSince: UInt64, pendingDeletions: UInt64, pendingMerges: UInt64)
    {
        self.guests = guests
        self.members = members
        self.createdSince = createdSince
        self.pendingDeletions = pendingDeletions
        self.pendingMerges = pendingMerges
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        guests = try buffer.readWire()
        members = try buffer.readWire()
        createdSince = try buffer.readWire()
        pendingDeletions = try buffer.readWire()
        pendingMerges = try buffer.readWire()
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeInteger(guests)
        buffer.writeInteger(members)
        buffer.writeInteger(createdSince)
        buffer.writeInteger(pendingDeletions)
        buffer.writeInteger(pendingMerges)
    }
}
