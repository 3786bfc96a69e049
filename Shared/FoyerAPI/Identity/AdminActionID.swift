public import FoyerWire
public import NIOCore

/// `beginAdminAction` response: the audit entry's id, for `endAdminAction`.
///
/// ```
/// u64 id   increasing
/// ```
public struct AdminActionID: WireMessage, Hashable {
    public var id: UInt64

    public init(id: UInt64) {
        self.id = id
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        id = try buffer.readWire()
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeInteger(id)
    }
}
