import FoyerSwiftLZ4
import Testing

/// Blocks a peer could send on purpose: every one is `corruptBlock`, never a crash or a read or write out of
/// bounds, and the Swift decoder accepts exactly what liblz4 accepts (but for an offset of 0).
@Suite("Swift LZ4 decoder, hostile blocks")
struct SwiftLZ4HostileBlockTests {
    /// A block of one sequence with a match and the last literals, written field by field so tests can break
    /// one field at a time. `literalExtra`/`matchExtra` are the bytes after the token's nibbles.
    static func block(
        token: UInt8,
        literalExtra: [UInt8] = [],
        literals: [UInt8],
        offset: [UInt8],
        matchExtra: [UInt8] = [],
        last: [UInt8]
    ) -> [UInt8] {
        [token] + literalExtra + literals + offset + matchExtra + [UInt8(last.count) << 4] + last
    }

    static let literals = Array("abcdefgh".utf8)
    static let last = Array("ijklmnop".utf8)

    /// 8 literals, an 8-byte match 8 bytes back, 8 last literals: 24 bytes.
    static let valid = block(token: 0x84, literals: literals, offset: [8, 0], last: last)
    static let validBytes = literals + literals + last

    @Test("The hand-made block is valid for both decoders")
    func handMadeBlockIsValid() throws {
        #expect(try LZ4.decompress(Self.valid, uncompressedByteCount: 24) == Self.validBytes)
        #expect(Liblz4.decompress(Self.valid, byteCount: 24) == Self.validBytes)
    }

    @Test("A block truncated at any byte is corrupt, for both decoders")
    func truncatedAtEveryByte() throws {
        var random = SeededGenerator(seed: 7)
        let inputs = [
            LZ4Tests.documentLike(byteCount: 2048), [UInt8](repeating: 0, count: 3000), random.bytes(300),
            Self.validBytes,
        ]
        for bytes in inputs {
            for block in [LZ4.compress(bytes), try #require(Liblz4.compress(bytes))] {
                for cut in 0..<block.count {
                    let prefix = Array(block.prefix(cut))
                    #expect(throws: LZ4Error.corruptBlock) {
                        try LZ4.decompress(prefix, uncompressedByteCount: bytes.count)
                    }
                    #expect(Liblz4.decompress(prefix, byteCount: bytes.count) == nil)
                }
            }
        }
    }

    @Test("An offset of 0, or one reaching before the output's start, is corrupt")
    func badOffsets() {
        for offset: [UInt8] in [[0, 0], [9, 0], [0xFF, 0xFF], [0, 1]] {
            let block = Self.block(token: 0x84, literals: Self.literals, offset: offset, last: Self.last)
            #expect(throws: LZ4Error.corruptBlock) { try LZ4.decompress(block, uncompressedByteCount: 24) }
        }
    }

    @Test("A length that runs past the input or the output is corrupt, however many extra bytes it has")
    func overlongLengths() {
        // A literal length of 15 + 255 × 4,000: far more than the input or the output.
        let literalOverflow = Self.block(
            token: 0xF4,
            literalExtra: [UInt8](repeating: 255, count: 4000) + [0],
            literals: Self.literals,
            offset: [8, 0],
            last: Self.last
        )
        // A match of 4 + 15 + 255 × 255 bytes where 8 fit, then one whose extension never ends.
        let matchOverflow = Self.block(
            token: 0x8F,
            literals: Self.literals,
            offset: [8, 0],
            matchExtra: [UInt8](repeating: 255, count: 255) + [0],
            last: Self.last
        )
        let endless = [0xF0] + [UInt8](repeating: 255, count: 100_000)
        for (block, declared) in [(literalOverflow, 24), (matchOverflow, 24), (endless, 1 << 24)] {
            #expect(throws: LZ4Error.corruptBlock) { try LZ4.decompress(block, uncompressedByteCount: declared) }
            #expect(Liblz4.decompress(block, byteCount: declared) == nil)
        }
    }

    @Test("A block breaking an end-of-block rule is corrupt, for both decoders")
    func endOfBlockRules() {
        let broken: [(rule: String, block: [UInt8], declared: Int)] = [
            // The match covers the last literals' place: only 4 literals follow it.
            (
                "fewer than 5 last literals",
                Self.block(token: 0x84, literals: Self.literals, offset: [8, 0], last: Array(Self.last.prefix(4))), 20
            ),
            // The block ends with a match.
            ("ends with a match", [0x84] + Self.literals + [8, 0], 16),
            // The match starts 11 bytes before the end.
            (
                "match starting in the last 12 bytes",
                Self.block(token: 0x80, literals: Self.literals, offset: [4, 0], last: Array(Self.last.prefix(7))), 19
            ),
            // Input after the last literals.
            ("trailing bytes", Self.valid + [0], 24),
        ]
        for (rule, block, declared) in broken {
            #expect(throws: LZ4Error.corruptBlock, "\(rule)") {
                try LZ4.decompress(block, uncompressedByteCount: declared)
            }
            #expect(Liblz4.decompress(block, byteCount: declared) == nil, "\(rule)")
        }
    }

    @Test("A block decoding to more or fewer bytes than declared is corrupt")
    func wrongDeclaredLength() throws {
        let bytes = LZ4Tests.documentLike(byteCount: 4096)
        let block = LZ4.compress(bytes)
        for declared in [0, 1, 23, 25, bytes.count - 1, bytes.count + 1, bytes.count * 2, 1 << 20] {
            #expect(throws: LZ4Error.corruptBlock) { try LZ4.decompress(block, uncompressedByteCount: declared) }
        }
        for declared in [23, 25] {
            #expect(throws: LZ4Error.corruptBlock) { try LZ4.decompress(Self.valid, uncompressedByteCount: declared) }
        }
        #expect(throws: LZ4Error.corruptBlock) { try LZ4.decompress([0], uncompressedByteCount: 1) }
        #expect(throws: LZ4Error.corruptBlock) { try LZ4.decompress([0, 0], uncompressedByteCount: 0) }
        #expect(throws: LZ4Error.corruptBlock) { try LZ4.decompress([], uncompressedByteCount: 0) }
        #expect(throws: LZ4Error.corruptBlock) { try LZ4.decompress([0], uncompressedByteCount: -1) }
        #expect(throws: LZ4Error.corruptBlock) {
            try LZ4.decompress([0], uncompressedByteCount: LZ4.maxInputByteCount + 1)
        }
    }

    @Test("A declared length beyond the limit is refused from the destination's count alone")
    func oversizedDestination() {
        let block = LZ4.compress(LZ4Tests.documentLike(byteCount: 256))
        // One byte stands in for the destination: nothing may be written, the check comes first.
        let storage = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
        defer { storage.deallocate() }
        let oversized = UnsafeMutableRawBufferPointer(start: storage, count: LZ4.maxInputByteCount + 1)
        let refused = block.withUnsafeBytes { source in (try? LZ4.decompress(source, into: oversized)) == nil }
        #expect(refused)
    }

    @Test("Seeded random corruptions: the Swift decoder accepts exactly what liblz4 accepts, with the same bytes")
    func randomCorruptionsAgreeWithLiblz4() throws {
        var random = SeededGenerator(seed: 0xBAD_B10C)
        let sources = [
            LZ4Tests.documentLike(byteCount: 1500), random.bytes(800, alphabet: 3), (0..<900).map { UInt8($0 % 3) },
            Self.validBytes,
        ]
        var accepted = 0
        for bytes in sources {
            for original in [LZ4.compress(bytes), try #require(Liblz4.compress(bytes))] {
                for _ in 0..<1500 {
                    var block = original
                    for _ in 0..<Int.random(in: 1...3, using: &random) {
                        let index = Int.random(in: 0..<block.count, using: &random)
                        block[index] = .random(in: 0...255, using: &random)
                    }
                    let declared = bytes.count + [0, 0, 0, -1, 1, -7].randomElement(using: &random)!
                    let ours = try? LZ4.decompress(block, uncompressedByteCount: declared)
                    let theirs = Liblz4.decompress(block, byteCount: declared)
                    if ours == nil, theirs != nil {
                        // liblz4 (1.9.4) lets an offset of 0 through, copying bytes it never decoded; the format
                        // forbids it. Every other block must get the same answer from both.
                        #expect(Self.hasZeroOffset(block))
                    } else {
                        #expect(ours == theirs)
                    }
                    if ours != nil { accepted += 1 }
                }
            }
        }
        // Some corruptions (a changed literal) still decode: the comparison covers both outcomes.
        #expect(accepted > 0)
    }

    /// Whether the block, walked sequence by sequence as far as it goes, has a match with an offset of 0.
    static func hasZeroOffset(_ block: [UInt8]) -> Bool {
        var position = 0
        func length(nibble: Int) -> Int? {
            var length = nibble
            guard nibble == 15 else { return length }
            while position < block.count {
                length += Int(block[position])
                position += 1
                if block[position - 1] != 255 { return length }
            }
            return nil
        }
        while position < block.count {
            let token = Int(block[position])
            position += 1
            guard let literals = length(nibble: token >> 4) else { return false }
            position += literals
            guard position + 2 <= block.count else { return false }
            if block[position] == 0, block[position + 1] == 0 { return true }
            position += 2
            guard length(nibble: token & 0x0F) != nil else { return false }
        }
        return false
    }
}
