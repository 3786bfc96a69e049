import FoyerLZ4
import FoyerSwiftLZ4

/// The `lz4` target: the pure-Swift LZ4 block decoder (the client's) against liblz4 (the services'), differentially.
///
/// The input's first two bytes are the declared uncompressed length (little-endian, 1...65,536), the rest the block.
/// Invariants: both decoders accept or both refuse, and when they accept they give the same bytes; and each
/// compressor's block of the input decodes, with the other decoder, back to the input.
enum LZ4Fuzzing {
    static let target = FuzzTarget(
        name: "lz4",
        summary: "pure-Swift LZ4 decoder and compressor against liblz4 (differential)",
        run: { run(Array($0)) },
        seeds: { FuzzSeeds.lz4Blocks }
    )

    static func run(_ input: [UInt8]) {
        guard input.count >= 2 else { return }
        let declared = (Int(input[0]) | Int(input[1]) << 8) + 1
        let block = Array(input.dropFirst(2))
        let swift = Result { () throws(FoyerSwiftLZ4.LZ4Error) in
            try FoyerSwiftLZ4.LZ4.decompress(block, uncompressedByteCount: declared)
        }
        let liblz4 = Result { () throws(FoyerLZ4.LZ4Error) in
            try FoyerLZ4.LZ4.decompress(block, uncompressedByteCount: declared)
        }
        switch (swift, liblz4) {
        case (.success(let fromSwift), .success(let fromLiblz4)):
            guard fromSwift == fromLiblz4 else { FuzzTarget.violated("lz4", "the decoders disagree on the output") }
        case (.failure, .failure):
            break
        case (.success, .failure):
            FuzzTarget.violated("lz4", "the Swift decoder accepts a block liblz4 refuses")
        case (.failure, .success):
            FuzzTarget.violated("lz4", "the Swift decoder refuses a block liblz4 accepts")
        }
        guard !input.isEmpty else { return }
        let bySwift = FoyerSwiftLZ4.LZ4.compress(input)
        guard (try? FoyerLZ4.LZ4.decompress(bySwift, uncompressedByteCount: input.count)) == input else {
            FuzzTarget.violated("lz4", "liblz4 does not decode the Swift compressor's block back to the input")
        }
        let byLiblz4 = FoyerLZ4.LZ4.compress(input)
        guard (try? FoyerSwiftLZ4.LZ4.decompress(byLiblz4, uncompressedByteCount: input.count)) == input else {
            FuzzTarget.violated("lz4", "the Swift decoder does not decode liblz4's block back to the input")
        }
    }
}
