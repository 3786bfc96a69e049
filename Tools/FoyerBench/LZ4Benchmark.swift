import CFoyerLZ4
import FoyerLZ4
import FoyerSwiftLZ4
import FoyerWire
import NIOCore

/// The wire codec's LZ4 path as the services run it (`BodyCompression` with `LZ4BlockCodec.liblz4`, on ByteBuffers,
/// with its checks) against liblz4 called directly on preallocated buffers, for 256 B, 4 KiB and 64 KiB bodies of
/// document-like data; and the pure-Swift block codec (`FoyerSwiftLZ4`, the client's `LZ4BlockCodec.swift`) on the
/// same buffers, decoding the same liblz4 block, as a ratio to liblz4.
struct LZ4Benchmark {
    static let sizes = [256, 4096, 65_536]

    struct Row: Codable, Sendable {
        var payloadBytes: Int
        var compressedBytes: Int
        var codecCompressMBps: Double
        var liblz4CompressMBps: Double
        var codecDecompressMBps: Double
        var liblz4DecompressMBps: Double
        /// The pure-Swift codec: its block's size, and its speeds on the same input and on liblz4's block.
        var swiftCompressedBytes: Int
        var swiftCompressMBps: Double
        var swiftDecompressMBps: Double
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
        let compressed = BodyCompression.compress(body, threshold: 0, codec: .liblz4, allocator: allocator)!

        let codecCompress = Self.time(iterations) {
            _ = BodyCompression.compress(body, threshold: 0, codec: .liblz4, allocator: allocator)
        }
        let codecDecompress = Self.time(iterations) {
            _ = try! BodyCompression.decompress(
                compressed,
                maxUncompressedBytes: 1 << 20,
                codec: .liblz4,
                allocator: allocator
            )
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
        let swift = Self.measureSwift(source: source, block: Array(block.prefix(blockLength)), iterations: iterations)
        let megabytes = Double(size * iterations) / 1_000_000
        return Row(
            payloadBytes: size,
            compressedBytes: compressed.readableBytes,
            codecCompressMBps: megabytes / codecCompress,
            liblz4CompressMBps: megabytes / directCompress,
            codecDecompressMBps: megabytes / codecDecompress,
            liblz4DecompressMBps: megabytes / directDecompress,
            swiftCompressedBytes: swift.compressedBytes,
            swiftCompressMBps: megabytes / swift.compressSeconds,
            swiftDecompressMBps: megabytes / swift.decompressSeconds
        )
    }

    /// The pure-Swift codec on preallocated buffers: compressing `source`, and decoding liblz4's `block` of it.
    private static func measureSwift(
        source: [UInt8],
        block: [UInt8],
        iterations: Int
    ) -> (compressedBytes: Int, compressSeconds: Double, decompressSeconds: Double) {
        var output = [UInt8](repeating: 0, count: FoyerSwiftLZ4.LZ4.compressBound(source.count)!)
        var restored = [UInt8](repeating: 0, count: source.count)
        let compressedBytes = FoyerSwiftLZ4.LZ4.compress(source).count
        let compress = time(iterations) {
            source.withUnsafeBytes { input in
                output.withUnsafeMutableBytes { output in _ = FoyerSwiftLZ4.LZ4.compress(input, into: output) }
            }
        }
        let decompress = time(iterations) {
            block.withUnsafeBytes { input in
                restored.withUnsafeMutableBytes { output in try! FoyerSwiftLZ4.LZ4.decompress(input, into: output) }
            }
        }
        precondition(restored == source, "the Swift codec must decode liblz4's block")
        return (compressedBytes, compress, decompress)
    }

    /// Seconds taken by `iterations` runs of `body`.
    private static func time(_ iterations: Int, _ body: () -> Void) -> Double {
        let start = NIODeadline.now()
        for _ in 0..<iterations { body() }
        return Double((NIODeadline.now() - start).nanoseconds) / 1e9
    }
}
