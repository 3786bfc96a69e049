import CFoyerLZ4
import FoyerWire
import NIOCore

/// The wire codec's LZ4 path (`BodyCompression`, on ByteBuffers, with its checks) against liblz4 called
/// directly on preallocated buffers, for 256 B, 4 KiB and 64 KiB bodies of document-like data.
struct LZ4Benchmark {
    static let sizes = [256, 4096, 65_536]

    struct Row: Codable, Sendable {
        var payloadBytes: Int
        var compressedBytes: Int
        var codecCompressMBps: Double
        var liblz4CompressMBps: Double
        var codecDecompressMBps: Double
        var liblz4DecompressMBps: Double
    }

    /// Repeated, slightly varied JSON-like records: roughly what document bodies look like.
    static func payload(byteCount: Int) -> ByteBuffer {
        var text = ""
        var index = 0
        while text.utf8.count < byteCount {
            text +=
                #"{"id":"doc-\#(index)","title":"Shopping list \#(index % 7)","items":["milk","eggs","bread"],"updated":\#(1_700_000_000 + index * 37)}"#
            index += 1
        }
        return ByteBuffer(bytes: Array(text.utf8.prefix(byteCount)))
    }

    func run() -> [Row] {
        Self.sizes.map(measure)
    }

    private func measure(size: Int) -> Row {
        let body = Self.payload(byteCount: size)
        let allocator = ByteBufferAllocator()
        let iterations = max(200, 200_000_000 / size / 20)
        let compressed = BodyCompression.compress(body, threshold: 0, allocator: allocator)!

        let codecCompress = Self.time(iterations) {
            _ = BodyCompression.compress(body, threshold: 0, allocator: allocator)
        }
        let codecDecompress = Self.time(iterations) {
            _ = try! BodyCompression.decompress(compressed, maxUncompressedBytes: 1 << 20, allocator: allocator)
        }

        let source = Array(body.readableBytesView)
        var block = [UInt8](repeating: 0, count: Int(LZ4_compressBound(Int32(size))))
        var restored = [UInt8](repeating: 0, count: size)
        let blockLength = Int(LZ4_compress_default(source, &block, Int32(size), Int32(block.count)))
        let directCompress = Self.time(iterations) {
            source.withUnsafeBufferPointer { input in
                block.withUnsafeMutableBufferPointer { output in
                    _ = LZ4_compress_default(
                        UnsafeRawPointer(input.baseAddress!).assumingMemoryBound(to: CChar.self),
                        UnsafeMutableRawPointer(output.baseAddress!).assumingMemoryBound(to: CChar.self),
                        Int32(size),
                        Int32(output.count)
                    )
                }
            }
        }
        let directDecompress = Self.time(iterations) {
            block.withUnsafeBufferPointer { input in
                restored.withUnsafeMutableBufferPointer { output in
                    _ = LZ4_decompress_safe(
                        UnsafeRawPointer(input.baseAddress!).assumingMemoryBound(to: CChar.self),
                        UnsafeMutableRawPointer(output.baseAddress!).assumingMemoryBound(to: CChar.self),
                        Int32(blockLength),
                        Int32(size)
                    )
                }
            }
        }
        let megabytes = Double(size * iterations) / 1_000_000
        return Row(
            payloadBytes: size,
            compressedBytes: compressed.readableBytes,
            codecCompressMBps: megabytes / codecCompress,
            liblz4CompressMBps: megabytes / directCompress,
            codecDecompressMBps: megabytes / codecDecompress,
            liblz4DecompressMBps: megabytes / directDecompress
        )
    }

    /// Seconds taken by `iterations` runs of `body`.
    private static func time(_ iterations: Int, _ body: () -> Void) -> Double {
        let start = NIODeadline.now()
        for _ in 0..<iterations { body() }
        return Double((NIODeadline.now() - start).nanoseconds) / 1e9
    }
}
