import FoyerSwiftLZ4
import Testing

/// The Swift codec against liblz4: each decodes the other's blocks to the same bytes.
@Suite("Swift LZ4 block codec, against liblz4")
struct SwiftLZ4Tests {
    /// Inputs for every rule of the format: empty, tiny, text, incompressible, runs that make matches overlap
    /// what they write, inputs past the 64 KiB window, and sizes and tails around the end-of-block rules.
    static let inputs: [Input] = {
        var random = SeededGenerator(seed: 14)
        var inputs: [(name: String, bytes: [UInt8])] = [("empty", [])]
        for count in 1...20 {
            inputs.append(("\(count) random bytes", random.bytes(count)))
            inputs.append(("\(count) equal bytes", [UInt8](repeating: 0x61, count: count)))
            inputs.append(("\(count) bytes of 'abcd'", Array(String(repeating: "abcd", count: 5).utf8.prefix(count))))
        }
        inputs += [
            ("document-like text, 64 KiB", LZ4Tests.documentLike(byteCount: 65_536)),
            ("document-like text, 300,000 bytes", LZ4Tests.documentLike(byteCount: 300_000)),
            ("incompressible, 4 KiB", random.bytes(4096)),
            ("incompressible, 100,000 bytes", random.bytes(100_000)),
            ("zeros, 100,000 bytes", [UInt8](repeating: 0, count: 100_000)),
            ("period 2, 70,000 bytes", (0..<70_000).map { UInt8($0 % 2) }),
            ("period 3, 1,000 bytes", (0..<1000).map { UInt8($0 % 3) }),
            ("small alphabet, 200,000 bytes", random.bytes(200_000, alphabet: 4)),
        ]
        // The same 70,000 random bytes twice: the repeat is out of the window, so it must stay literals.
        let far = random.bytes(70_000)
        inputs.append(("a repeat 70,000 bytes back", far + far))
        // Random bytes, then a run reaching the end: a match wants to cover the last bytes, which must stay
        // literals, and must not start in the last 12.
        for tail in 0...20 {
            inputs.append(("random, then a \(tail)-byte run", random.bytes(40) + [UInt8](repeating: 7, count: tail)))
        }
        for count in 60...70 {
            inputs.append(("\(count) bytes of text", LZ4Tests.documentLike(byteCount: count)))
        }
        return inputs.map { Input(name: $0.name, bytes: $0.bytes) }
    }()

    /// An input, named after its shape in the test report.
    struct Input: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var testDescription: String { name }
    }

    @Test("The worst-case size is liblz4's")
    func compressBoundMatchesLiblz4() {
        for count in [0, 1, 15, 16, 254, 255, 256, 65_536, 1_000_000, LZ4.maxInputByteCount] {
            #expect(LZ4.compressBound(count) == Liblz4.compressBound(count))
        }
        #expect(LZ4.compressBound(LZ4.maxInputByteCount + 1) == nil)
        #expect(LZ4.compressBound(-1) == nil)
    }

    @Test("Our blocks fit the bound and decode with liblz4 and with ours to the same bytes", arguments: inputs)
    func swiftBlocksDecodeEverywhere(input: Input) throws {
        let bytes = input.bytes
        let block = LZ4.compress(bytes)
        #expect(block.count <= LZ4.compressBound(bytes.count)!)
        #expect(Liblz4.decompress(block, byteCount: bytes.count) == bytes)
        #expect(try LZ4.decompress(block, uncompressedByteCount: bytes.count) == bytes)
    }

    @Test("liblz4's blocks, at every acceleration, decode with ours to the same bytes", arguments: inputs)
    func liblz4BlocksDecodeWithOurs(input: Input) throws {
        let bytes = input.bytes
        for acceleration: Int32 in [1, 8, 65_537] {
            let block = try #require(Liblz4.compress(bytes, acceleration: acceleration))
            #expect(try LZ4.decompress(block, uncompressedByteCount: bytes.count) == bytes)
        }
    }

    @Test("An empty input is the format's empty block, the single byte 0, as liblz4 makes it")
    func emptyBlock() throws {
        #expect(LZ4.compress([]) == [0])
        #expect(Liblz4.compress([]) == [0])
        #expect(try LZ4.decompress([0], uncompressedByteCount: 0) == [])
    }

    @Test("Compressible inputs shrink, to within a small factor of liblz4's blocks")
    func compressionRatio() throws {
        for bytes in [LZ4Tests.documentLike(byteCount: 65_536), [UInt8](repeating: 0, count: 100_000)] {
            let ours = LZ4.compress(bytes).count
            let theirs = try #require(Liblz4.compress(bytes)).count
            #expect(ours < bytes.count / 4)
            #expect(ours <= theirs + theirs / 4)
        }
    }

    @Test("Seeded random inputs of every shape round-trip both ways")
    func randomInputs() throws {
        var random = SeededGenerator(seed: 0x4C5A_34)
        for _ in 0..<300 {
            var bytes: [UInt8] = []
            let target = Int.random(in: 0...6000, using: &random)
            while bytes.count < target {
                // Pieces of random text, runs, and copies of earlier bytes at random distances.
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes += random.bytes(Int.random(in: 1...40, using: &random), alphabet: 16)
                case 1:
                    bytes += [UInt8](
                        repeating: .random(in: 0...255, using: &random),
                        count: .random(in: 1...300, using: &random)
                    )
                default:
                    guard !bytes.isEmpty else { continue }
                    let start = Int.random(in: 0..<bytes.count, using: &random)
                    bytes += bytes[start..<min(bytes.count, start + Int.random(in: 4...200, using: &random))]
                }
            }
            let ours = LZ4.compress(bytes)
            #expect(Liblz4.decompress(ours, byteCount: bytes.count) == bytes)
            let theirs = try #require(Liblz4.compress(bytes))
            #expect(try LZ4.decompress(theirs, uncompressedByteCount: bytes.count) == bytes)
        }
    }

    @Test("Compressing into a destination that is too small fails without writing past it")
    func destinationTooSmall() throws {
        let bytes = LZ4Tests.documentLike(byteCount: 4096)
        let needed = LZ4.compress(bytes).count
        for capacity in [1, 2, needed / 2, needed - 1] {
            // A guard byte after the destination must survive.
            var storage = [UInt8](repeating: 0xEE, count: capacity + 1)
            let written = bytes.withUnsafeBytes { source in
                storage.withUnsafeMutableBytes { destination in
                    LZ4.compress(source, into: UnsafeMutableRawBufferPointer(rebasing: destination.prefix(capacity)))
                }
            }
            #expect(written == nil)
            #expect(storage.last == 0xEE)
        }
        let empty = bytes.withUnsafeBytes {
            LZ4.compress($0, into: UnsafeMutableRawBufferPointer(start: nil, count: 0))
        }
        #expect(empty == nil)
    }
}
