public import FoyerWire
public import NIOCore

/// The result of a `putOnce`: the write this op made, now or before.
///
/// ```
/// varint  version                 the version the op's write gave the document
/// i64     updatedAtMicroseconds   the time of that write
/// bool    replayed                true when another attempt (another `attempt` id) made the write; this call
///                                 wrote nothing. False for this attempt's own write, also when answered again
///                                 to a retry of it
/// ```
public struct PutOnceResponse: WireMessage, Hashable {
    public var version: UInt64
    public var updatedAtMicroseconds: Int64
    public var replayed: Bool

    public init(version: UInt64, updatedAtMicroseconds: Int64, replayed: Bool) {
        self.version = version
        self.updatedAtMicroseconds = updatedAtMicroseconds
        self.replayed = replayed
    }

    /// The write's result as `put` answers it.
    public var result: PutDocumentResponse {
        PutDocumentResponse(version: version, updatedAtMicroseconds: updatedAtMicroseconds)
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        version = try buffer.readVarint()
        updatedAtMicroseconds = try buffer.readWire(Int64.self)
        replayed = try buffer.readBool()
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeVarint(version)
        buffer.writeInteger(updatedAtMicroseconds)
        buffer.writeBool(replayed)
    }
}
