import FoyerLZ4
import Testing

@Suite("LZ4 block codec")
struct LZ4Tests {
    /// Inputs of the shapes the wire protocol carries: tiny, document-like text, incompressible, long runs.
    static let payloads: [(name: String, bytes: [UInt8])] = [
        ("one byte", [0x2A]),
        ("document-like text, 64 KiB", documentLike(byteCount: 65_536)),
        ("incompressible, 4 KiB", incompressible(byteCount: 4096)),
        ("zeros, 100,000 bytes", [UInt8](repeating: 0, count: 100_000)),
    ]

    @Test("Our blocks decode with liblz4 to the same bytes", arguments: payloads)
    func compressedBlocksDecodeWithLiblz4(name: String, bytes: [UInt8]) throws {
        let block = LZ4.compress(bytes)
        let bound = try #require(LZ4.compressBound(bytes.count))
        #expect(block.count <= bound)
        #expect(Liblz4.decompress(block, byteCount: bytes.count) == bytes)
    }

    @Test("liblz4's blocks, at every acceleration, decode with ours to the same bytes", arguments: payloads)
    func liblz4BlocksDecodeWithOurs(name: String, bytes: [UInt8]) throws {
        for acceleration: Int32 in [1, 8, 65_537] {
            let block = try #require(Liblz4.compress(bytes, acceleration: acceleration))
            #expect(try LZ4.decompress(block, uncompressedByteCount: bytes.count) == bytes)
        }
    }

    @Test("Our blocks round-trip through our decoder", arguments: payloads)
    func roundTrip(name: String, bytes: [UInt8]) throws {
        #expect(try LZ4.decompress(LZ4.compress(bytes), uncompressedByteCount: bytes.count) == bytes)
    }

    @Test("A truncated block is corrupt, at every cut")
    func truncatedBlock() throws {
        let bytes = Self.documentLike(byteCount: 4096)
        let block = LZ4.compress(bytes)
        for cut in [1, 2, block.count / 2, block.count - 1] {
            #expect(throws: LZ4Error.corruptBlock) {
                try LZ4.decompress(Array(block.prefix(cut)), uncompressedByteCount: bytes.count)
            }
        }
        #expect(throws: LZ4Error.corruptBlock) { try LZ4.decompress([], uncompressedByteCount: bytes.count) }
    }

    @Test("A block that expands to more or fewer bytes than declared is corrupt")
    func declaredLengthMismatch() throws {
        let bytes = Self.documentLike(byteCount: 4096)
        let block = LZ4.compress(bytes)
        for declared in [bytes.count - 1, bytes.count / 2, 1, bytes.count + 1, bytes.count * 2] {
            #expect(throws: LZ4Error.corruptBlock) { try LZ4.decompress(block, uncompressedByteCount: declared) }
        }
        #expect(throws: LZ4Error.corruptBlock) { try LZ4.decompress(block, uncompressedByteCount: 0) }
    }

    @Test("A declared length beyond liblz4's limit is refused before decoding")
    func oversizedDeclaredLength() throws {
        let block = LZ4.compress(Self.documentLike(byteCount: 256))
        #expect(LZ4.compressBound(LZ4.maxInputByteCount + 1) == nil)
        #expect(LZ4.compressBound(-1) == nil)
        // The destination claims more than liblz4 accepts; the codec must refuse it from its count alone, so a
        // one-byte allocation stands in for it (nothing is written: the check comes before liblz4 is called).
        let storage = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
        defer { storage.deallocate() }
        let oversized = UnsafeMutableRawBufferPointer(start: storage, count: LZ4.maxInputByteCount + 1)
        let error = block.withUnsafeBytes { source -> LZ4Error? in
            do {
                try LZ4.decompress(source, into: oversized)
                return nil
            } catch {
                return error as? LZ4Error
            }
        }
        #expect(error == .corruptBlock)
    }

    @Test("A block of garbage is corrupt, not a crash")
    func garbageBlock() throws {
        // A literal run whose length says 15 + 255 + 255 + 1 bytes follow, but only two do.
        #expect(throws: LZ4Error.corruptBlock) {
            try LZ4.decompress([0xF0, 0xFF, 0xFF, 0x01, 0x02, 0x03], uncompressedByteCount: 526)
        }
        // A match whose offset points before the start of the output.
        #expect(throws: LZ4Error.corruptBlock) {
            try LZ4.decompress([0x14, 0x41, 0xFF, 0xFF, 0x00], uncompressedByteCount: 9)
        }
    }

    @Test("A match offset of 0 is corrupt, though liblz4 itself writes zeros for it (found by make fuzz)")
    func zeroOffset() throws {
        // 8 literals, then a match with offset 0 (the format calls the block corrupt), then 8 last literals; the
        // same with the offset 0 in a second sequence, after a valid match.
        let literals = Array("abcdefgh".utf8)
        let blocks: [(block: [UInt8], byteCount: Int)] = [
            ([0x84] + literals + [0, 0] + [0x80] + literals, 24),
            ([0x84] + literals + [8, 0] + [0x04] + [0, 0] + [0x80] + literals, 32),
        ]
        for (block, byteCount) in blocks {
            #expect(Liblz4.decompress(block, byteCount: byteCount) != nil)
            #expect(throws: LZ4Error.corruptBlock) { try LZ4.decompress(block, uncompressedByteCount: byteCount) }
        }
        // An offset with a zero low byte (256: 256 literals, a 4-byte match from the start, 8 last literals) is not 0.
        let long = Array(String(repeating: "0123456789abcdef", count: 16).utf8)
        let far = [0xF0, UInt8(long.count - 15)] + long + [0, 1] + [0x80] + literals
        let expected = long + long.prefix(4) + literals
        #expect(try LZ4.decompress(far, uncompressedByteCount: expected.count) == expected)
    }

    // MARK: Inputs

    static func documentLike(byteCount: Int) -> [UInt8] {
        var text = ""
        var index = 0
        while text.utf8.count < byteCount {
            text += #"{"id":"doc-\#(index)","title":"List \#(index % 7)","items":["milk","eggs"],"n":\#(index * 37)}"#
            index += 1
        }
        return Array(text.utf8.prefix(byteCount))
    }

    /// Deterministic pseudo-random bytes (xorshift), which LZ4 cannot shrink.
    static func incompressible(byteCount: Int) -> [UInt8] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return (0..<byteCount).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        }
    }
}
