public import NIOCore

/// LZ4 compression of frame bodies.
///
/// A compressed body is `u32 uncompressedLength` followed by one LZ4 block. A sender compresses a body only
/// when it is at least the negotiated threshold and the result is smaller; a receiver bounds the declared
/// length before allocating anything and demands that the block expand to exactly that many bytes. The block
/// codec is a parameter (``LZ4BlockCodec``, ``LZ4BlockCodec/swift`` unless the caller says otherwise): the bytes
/// are the same whichever one runs.
public enum BodyCompression {
    /// The default threshold in bytes under which bodies are sent as they are.
    public static let defaultThreshold = 512

    /// Compresses `body`, or returns `nil` when it is under `threshold` or compression would not save bytes.
    public static func compress(
        _ body: ByteBuffer,
        threshold: Int,
        codec: LZ4BlockCodec = .swift,
        allocator: ByteBufferAllocator
    ) -> ByteBuffer? {
        let count = body.readableBytes
        guard count >= max(threshold, 1), let bound = codec.compressBound(count) else { return nil }
        var output = allocator.buffer(capacity: 4 + bound)
        output.writeInteger(UInt32(count))
        let written = body.withUnsafeReadableBytes { source in
            output.writeWithUnsafeMutableBytes(minimumWritableBytes: bound) { destination in
                codec.compress(source, destination) ?? 0
            }
        }
        guard written > 0, output.readableBytes < count else { return nil }
        return output
    }

    /// Expands a compressed body.
    ///
    /// - Throws: `WireError.declaredLengthTooLarge` if the declared length is over `maxUncompressedBytes`,
    ///   `WireError.corruptCompressedBody` if the body is truncated, the block is corrupt, or it does not
    ///   expand to exactly the declared length.
    public static func decompress(
        _ body: ByteBuffer,
        maxUncompressedBytes: Int,
        codec: LZ4BlockCodec = .swift,
        allocator: ByteBufferAllocator
    ) throws(WireError) -> ByteBuffer {
        var body = body
        guard let declared = body.readInteger(as: UInt32.self), body.readableBytes > 0, declared > 0 else {
            throw .corruptCompressedBody
        }
        guard declared <= UInt32(clamping: maxUncompressedBytes) else {
            throw .declaredLengthTooLarge(declared, limit: maxUncompressedBytes)
        }
        var output = allocator.buffer(capacity: Int(declared))
        var failed = false
        _ = body.withUnsafeReadableBytes { source in
            output.writeWithUnsafeMutableBytes(minimumWritableBytes: Int(declared)) { destination in
                let target = UnsafeMutableRawBufferPointer(rebasing: destination.prefix(Int(declared)))
                guard codec.decompress(source, target) else {
                    failed = true
                    return 0
                }
                return Int(declared)
            }
        }
        guard !failed else { throw .corruptCompressedBody }
        return output
    }
}

extension Frame {
    /// This frame with its body compressed, if the type allows it and compression saves bytes.
    public func compressed(threshold: Int, codec: LZ4BlockCodec = .swift, allocator: ByteBufferAllocator) -> Frame {
        guard header.type.allowsCompression, !header.flags.contains(.compressed),
            let body = BodyCompression.compress(body, threshold: threshold, codec: codec, allocator: allocator)
        else { return self }
        var header = header
        header.flags.insert(.compressed)
        return Frame(header: header, body: body)
    }

    /// This frame with its body expanded, if it is compressed.
    ///
    /// - Parameter compressionNegotiated: whether the connection agreed on compression; a compressed body on
    ///   a connection that did not is an error.
    public func decompressed(
        compressionNegotiated: Bool,
        maxUncompressedBytes: Int,
        codec: LZ4BlockCodec = .swift,
        allocator: ByteBufferAllocator
    ) throws(WireError) -> Frame {
        guard header.flags.contains(.compressed) else { return self }
        guard compressionNegotiated else { throw .compressionNotNegotiated }
        var header = header
        header.flags.remove(.compressed)
        let body = try BodyCompression.decompress(
            body,
            maxUncompressedBytes: maxUncompressedBytes,
            codec: codec,
            allocator: allocator
        )
        return Frame(header: header, body: body)
    }
}
