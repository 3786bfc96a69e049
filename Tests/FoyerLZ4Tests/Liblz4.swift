import CFoyerLZ4

/// liblz4 called directly, to check both codecs against the library's own compressor and decompressor.
enum Liblz4 {
    /// liblz4's block for `bytes` at `acceleration` (1 is the default), or `nil` if it fails.
    static func compress(_ bytes: [UInt8], acceleration: Int32 = 1) -> [UInt8]? {
        // One spare byte gives every buffer an address, even for empty input.
        let source = bytes + [0]
        var block = [UInt8](repeating: 0, count: Int(LZ4_compressBound(Int32(bytes.count))) + 1)
        let written = source.withUnsafeBytes { source in
            block.withUnsafeMutableBytes { destination in
                LZ4_compress_fast(
                    source.baseAddress!.assumingMemoryBound(to: CChar.self),
                    destination.baseAddress!.assumingMemoryBound(to: CChar.self),
                    Int32(bytes.count),
                    Int32(destination.count - 1),
                    acceleration
                )
            }
        }
        return written > 0 ? Array(block.prefix(Int(written))) : nil
    }

    /// What `LZ4_decompress_safe` makes of `block` with room for exactly `byteCount` bytes, or `nil` if it
    /// refuses the block or it decodes to a different length.
    static func decompress(_ block: [UInt8], byteCount: Int) -> [UInt8]? {
        let source = block + [0]
        var output = [UInt8](repeating: 0, count: byteCount + 1)
        let decoded = source.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { destination in
                LZ4_decompress_safe(
                    source.baseAddress!.assumingMemoryBound(to: CChar.self),
                    destination.baseAddress!.assumingMemoryBound(to: CChar.self),
                    Int32(block.count),
                    Int32(byteCount)
                )
            }
        }
        return decoded == byteCount ? Array(output.prefix(byteCount)) : nil
    }

    /// liblz4's worst-case compressed size.
    static func compressBound(_ byteCount: Int) -> Int {
        Int(LZ4_compressBound(Int32(byteCount)))
    }
}
