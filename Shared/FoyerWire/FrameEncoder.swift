public import NIOCore

/// Writes frames: the 16-byte header, then the body as it is (compression is applied before, by the sender).
public struct FrameEncoder: MessageToByteEncoder {
    public typealias OutboundIn = Frame

    public init() {}

    public func encode(data frame: Frame, out: inout ByteBuffer) {
        frame.encode(into: &out)
    }
}

extension Frame {
    /// Appends the encoded frame to `buffer`.
    public func encode(into buffer: inout ByteBuffer) {
        buffer.reserveCapacity(minimumWritableBytes: FrameHeader.byteCount + body.readableBytes)
        header.encode(bodyLength: body.readableBytes, into: &buffer)
        buffer.writeImmutableBuffer(body)
    }
}
