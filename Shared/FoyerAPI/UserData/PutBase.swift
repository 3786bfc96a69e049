public import FoyerWire
public import NIOCore

/// The version of a document that a `putOnce` may replace, as far as the quota goes: the caller charged the write
/// against it (a new document, or the growth over `size`), so the write is made only while the document is still
/// this one.
///
/// ```
/// varint  version                 0: no document (then size and updatedAtMicroseconds are 0 too)
/// varint  size                    the length of its value in bytes
/// i64     updatedAtMicroseconds   the time of the write that made this version
/// ```
public struct PutBase: WireMessage, Hashable, Sendable {
    public var version: UInt64
    public var size: UInt64
    public var updatedAtMicroseconds: Int64

    /// No document.
    public static let absent = PutBase(version: 0, size: 0, updatedAtMicroseconds: 0)

    public init(version: UInt64, size: UInt64, updatedAtMicroseconds: Int64) {
        self.version = version
        self.size = size
        self.updatedAtMicroseconds = updatedAtMicroseconds
    }

    /// The version of a stored document.
    public init(_ document: StoredDocument) {
        self.init(
            version: document.version,
            size: UInt64(document.value.readableBytes),
            updatedAtMicroseconds: document.updatedAtMicroseconds
        )
    }

    /// Whether there is a document at all.
    public var exists: Bool { version > 0 }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        version = try buffer.readVarint()
        size = try buffer.readVarint()
        updatedAtMicroseconds = try buffer.readWire(Int64.self)
        if version == 0 && (size != 0 || updatedAtMicroseconds != 0) { throw .invalidValue("putBase.version") }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeVarint(version)
        buffer.writeVarint(size)
        buffer.writeInteger(updatedAtMicroseconds)
    }
}
