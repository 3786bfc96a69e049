public import NIOCore

/// A message body with a hand-written binary encoding: one type per message, no `Codable` on the wire.
///
/// `init(from:)` reads exactly its fields and leaves anything after them; `init(decoding:)` is what receivers
/// call, and it refuses trailing bytes, so a body is either understood completely or not at all.
public protocol WireMessage: Sendable {
    init(from buffer: inout ByteBuffer) throws(WireError)
    func encode(into buffer: inout ByteBuffer)
}

extension WireMessage {
    /// Decodes a whole body, refusing trailing bytes.
    @inlinable
    public init(decoding body: ByteBuffer) throws(WireError) {
        var body = body
        try self.init(from: &body)
        guard body.readableBytes == 0 else { throw .trailingBytes(body.readableBytes) }
    }

    /// Encodes the message into a new buffer.
    @inlinable
    public func encoded(allocator: ByteBufferAllocator = ByteBufferAllocator()) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: 64)
        encode(into: &buffer)
        return buffer
    }
}

/// An empty body, for methods that take or return nothing.
public struct Empty: WireMessage, Hashable {
    public init() {}
    public init(from buffer: inout ByteBuffer) throws(WireError) {}
    public func encode(into buffer: inout ByteBuffer) {}
}

/// A body that is passed through as raw bytes (the built-in echo method, benchmarks).
public struct RawBody: WireMessage, Hashable {
    public var bytes: ByteBuffer
    public init(_ bytes: ByteBuffer) { self.bytes = bytes }
    public init(from buffer: inout ByteBuffer) throws(WireError) {
        bytes = buffer.readSlice(length: buffer.readableBytes)!
    }
    public func encode(into buffer: inout ByteBuffer) {
        var copy = bytes
        buffer.writeBuffer(&copy)
    }
}
