import FoyerWire
import NIOCore
import Testing

@Suite("Body compression")
struct BodyCompressionTests {
    static let allocator = ByteBufferAllocator()
    static let compressible = ByteBuffer(string: String(repeating: "anonymous-first accounts ", count: 200))

    static func randomBytes(_ count: Int) -> ByteBuffer {
        var generator = SystemRandomNumberGenerator()
        return ByteBuffer(bytes: (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    @Test("a compressible body above the threshold is compressed and restored exactly")
    func roundTrip() throws {
        let compressed = try #require(
            BodyCompression.compress(Self.compressible, threshold: 512, allocator: Self.allocator)
        )
        #expect(compressed.readableBytes < Self.compressible.readableBytes)
        let restored = try BodyCompression.decompress(
            compressed,
            maxUncompressedBytes: 1 << 20,
            allocator: Self.allocator
        )
        #expect(restored == Self.compressible)
    }

    @Test("bodies under the threshold, or that do not shrink, travel as they are")
    func onlyWhenItSaves() {
        #expect(BodyCompression.compress(ByteBuffer(string: "short"), threshold: 512, allocator: Self.allocator) == nil)
        #expect(BodyCompression.compress(Self.randomBytes(4096), threshold: 512, allocator: Self.allocator) == nil)
        let frame = Frame.response(id: 1, body: Self.randomBytes(4096))
        #expect(frame.compressed(threshold: 512, allocator: Self.allocator) == frame)
    }

    @Test("a frame is flagged when compressed and unflagged when restored; control frames are never compressed")
    func frameFlags() throws {
        let frame = Frame.response(id: 1, body: Self.compressible)
        let compressed = frame.compressed(threshold: 512, allocator: Self.allocator)
        #expect(compressed.header.flags.contains(.compressed))
        let restored = try compressed.decompressed(
            compressionNegotiated: true,
            maxUncompressedBytes: 1 << 20,
            allocator: Self.allocator
        )
        #expect(restored == frame)
        let goAway = Frame.goAway(reason: .shutdown, body: Self.compressible)
        #expect(goAway.compressed(threshold: 0, allocator: Self.allocator) == goAway)
    }

    @Test("a compressed frame on a connection that did not negotiate compression is refused")
    func notNegotiated() {
        let compressed = Frame.response(id: 1, body: Self.compressible).compressed(
            threshold: 512,
            allocator: Self.allocator
        )
        #expect(throws: WireError.compressionNotNegotiated) {
            try compressed.decompressed(
                compressionNegotiated: false,
                maxUncompressedBytes: 1 << 20,
                allocator: Self.allocator
            )
        }
    }

    @Test("a declared length over the limit is refused before anything is allocated")
    func declaredTooLarge() {
        var body = ByteBuffer()
        body.writeInteger(UInt32.max)
        body.writeBytes([0x10, 0x41])
        #expect(throws: WireError.declaredLengthTooLarge) {
            try BodyCompression.decompress(body, maxUncompressedBytes: 1 << 20, allocator: Self.allocator)
        }
    }

    @Test("corrupt blocks, wrong declared lengths, zero lengths and truncated bodies are refused")
    func corruptBodies() throws {
        let good = try #require(BodyCompression.compress(Self.compressible, threshold: 0, allocator: Self.allocator))
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
                try BodyCompression.decompress(body, maxUncompressedBytes: 1 << 20, allocator: Self.allocator)
            }
        }
    }
}
