import FoyerLZ4
import FoyerWire
import NIOCore
import Testing

/// Every test runs with both block codecs: the client's (Swift) and the services' (liblz4).
@Suite("Body compression")
struct BodyCompressionTests {
    static let codecs: [LZ4BlockCodec] = [.swift, .liblz4]
    static let allocator = ByteBufferAllocator()
    static let compressible = ByteBuffer(string: String(repeating: "anonymous-first accounts ", count: 200))

    static func randomBytes(_ count: Int) -> ByteBuffer {
        var generator = SystemRandomNumberGenerator()
        return ByteBuffer(bytes: (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    @Test("a compressible body above the threshold is compressed and restored exactly", arguments: codecs)
    func roundTrip(codec: LZ4BlockCodec) throws {
        let compressed = try #require(
            BodyCompression.compress(Self.compressible, threshold: 512, codec: codec, allocator: Self.allocator)
        )
        #expect(compressed.readableBytes < Self.compressible.readableBytes)
        let restored = try BodyCompression.decompress(
            compressed,
            maxUncompressedBytes: 1 << 20,
            codec: codec,
            allocator: Self.allocator
        )
        #expect(restored == Self.compressible)
    }

    @Test("bodies under the threshold, or that do not shrink, travel as they are", arguments: codecs)
    func onlyWhenItSaves(codec: LZ4BlockCodec) {
        #expect(
            BodyCompression.compress(
                ByteBuffer(string: "short"),
                threshold: 512,
                codec: codec,
                allocator: Self.allocator
            ) == nil
        )
        #expect(
            BodyCompression.compress(Self.randomBytes(4096), threshold: 512, codec: codec, allocator: Self.allocator)
                == nil
        )
        let frame = Frame.response(id: 1, body: Self.randomBytes(4096))
        #expect(frame.compressed(threshold: 512, codec: codec, allocator: Self.allocator) == frame)
    }

    @Test(
        "a frame is flagged when compressed and unflagged when restored; control frames are never compressed",
        arguments: codecs
    )
    func frameFlags(codec: LZ4BlockCodec) throws {
        let frame = Frame.response(id: 1, body: Self.compressible)
        let compressed = frame.compressed(threshold: 512, codec: codec, allocator: Self.allocator)
        #expect(compressed.header.flags.contains(.compressed))
        let restored = try compressed.decompressed(
            compressionNegotiated: true,
            maxUncompressedBytes: 1 << 20,
            codec: codec,
            allocator: Self.allocator
        )
        #expect(restored == frame)
        let goAway = Frame.goAway(reason: .shutdown, body: Self.compressible)
        #expect(goAway.compressed(threshold: 0, codec: codec, allocator: Self.allocator) == goAway)
    }

    @Test("a compressed frame on a connection that did not negotiate compression is refused", arguments: codecs)
    func notNegotiated(codec: LZ4BlockCodec) {
        let compressed = Frame.response(id: 1, body: Self.compressible).compressed(
            threshold: 512,
            codec: codec,
            allocator: Self.allocator
        )
        #expect(throws: WireError.compressionNotNegotiated) {
            try compressed.decompressed(
                compressionNegotiated: false,
                maxUncompressedBytes: 1 << 20,
                codec: codec,
                allocator: Self.allocator
            )
        }
    }

    @Test("a declared length over the limit is refused before anything is allocated", arguments: codecs)
    func declaredTooLarge(codec: LZ4BlockCodec) {
        var body = ByteBuffer()
        body.writeInteger(UInt32.max)
        body.writeBytes([0x10, 0x41])
        #expect(throws: WireError.declaredLengthTooLarge) {
            try BodyCompression.decompress(body, maxUncompressedBytes: 1 << 20, codec: codec, allocator: Self.allocator)
        }
    }

    @Test("corrupt blocks, wrong declared lengths, zero lengths and truncated bodies are refused", arguments: codecs)
    func corruptBodies(codec: LZ4BlockCodec) throws {
        let good = try #require(
            BodyCompression.compress(Self.compressible, threshold: 0, codec: codec, allocator: Self.allocator)
        )
        let length = Self.compressible.readableBytes

        var shorter = good
        shorter.setInteger(UInt32(length - 1), at: shorter.readerIndex)
        var longer = good
        longer.setInteger(UInt32(length + 1), at: longer.readerIndex)
        var zero = good
        zero.setInteger(UInt32(0), at: zero.readerIndex)
        var garbage = ByteBuffer()
        garbage.writeInteger(UInt32(100))
        garbage.writeBytes([0xFF, 0xFF, 0xFF, 0xFF, 0xFF])
        let truncated = good.getSlice(at: good.readerIndex, length: good.readableBytes - 3)!
        let onlyLength = good.getSlice(at: good.readerIndex, length: 4)!
        let empty = ByteBuffer()

        for body in [shorter, longer, zero, garbage, truncated, onlyLength, empty] {
            #expect(throws: WireError.self) {
                try BodyCompression.decompress(
                    body,
                    maxUncompressedBytes: 1 << 20,
                    codec: codec,
                    allocator: Self.allocator
                )
            }
        }
    }

    @Test(
        "a body compressed by either codec expands with the other, to the same bytes",
        arguments: [(LZ4BlockCodec.swift, LZ4BlockCodec.liblz4), (.liblz4, .swift)]
    )
    func interchangeable(compressor: LZ4BlockCodec, decompressor: LZ4BlockCodec) throws {
        for body in [Self.compressible, Self.documentLike(byteCount: 600), Self.documentLike(byteCount: 70_000)] {
            let compressed = try #require(
                BodyCompression.compress(body, threshold: 0, codec: compressor, allocator: Self.allocator)
            )
            let restored = try BodyCompression.decompress(
                compressed,
                maxUncompressedBytes: 1 << 20,
                codec: decompressor,
                allocator: Self.allocator
            )
            #expect(restored == body)
        }
    }

    /// JSON-like records, varied enough that the two compressors need not make the same block.
    static func documentLike(byteCount: Int) -> ByteBuffer {
        var text = ""
        var index = 0
        while text.utf8.count < byteCount {
            text += #"{"id":"doc-\#(index)","n":\#(index * 7919 % 1000),"tags":["a","b\#(index % 13)"]},"#
            index += 1
        }
        return ByteBuffer(bytes: Array(text.utf8.prefix(byteCount)))
    }
}
