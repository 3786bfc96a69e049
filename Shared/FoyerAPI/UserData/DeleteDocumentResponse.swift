public import FoyerWire
public import NIOCore

/// ```
/// bool  deleted   false when there was no such document
/// ```
public struct DeleteDocumentResponse: WireMessage, Hashable {
    public var deleted: Bool

    public init(deleted: Bool) { self.deleted = deleted }

    public init(from buffer: inout ByteBuffer) throws(WireError) { deleted = try buffer.readBool() }

    public func encode(into buffer: inout ByteBuffer) { buffer.writeBool(deleted) }
}
