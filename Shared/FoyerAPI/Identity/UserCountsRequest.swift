public import FoyerWire
public import NIOCore

/// `userCounts` request.
///
/// ```
/// u64 sinceMilliseconds   users created at or after this time are counted in `createdSince`
/// ```
public struct UserCountsRequest: WireMessage, Hashable {
    public var sinceMilliseconds: UInt64

    public init(sinceMilliseconds: UInt64) {
        self.sinceMilliseconds = sinceMilliseconds
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        sinceMilliseconds = try buffer.readWire()
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeInteger(sinceMilliseconds)
    }
}
