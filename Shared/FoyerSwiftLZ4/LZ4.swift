/// LZ4 block compression in Swift, with no C library and no other module underneath.
///
/// The same API as `FoyerLZ4`'s `LZ4` (which wraps the system's liblz4), so one can replace the other by an
/// import. Only the block format is used (no frame format): Foyer's wire protocol carries the uncompressed
/// length itself, so the receiver can bound the allocation before decoding and demand that the block decode to
/// exactly that many bytes. Blocks are the standard LZ4 block format and interchangeable with liblz4's:
/// sequences of a token (literal length and match length, 4 bits each), the literal length's extra bytes, the
/// literals, a 2-byte little-endian offset (1...65,535) and the match length's extra bytes (a match is at least
/// 4 bytes); the last sequence is literals only, the last 5 bytes are literals and the last match starts at
/// least 12 bytes before the end.
///
/// The decoder checks every index before it reads or writes, whatever the input; the compressor is a greedy
/// hash-table matcher like liblz4's fast mode (a 4-byte hash, the 64 KiB window).
public enum LZ4 {
    /// The largest input accepted, the same as liblz4's (`LZ4_MAX_INPUT_SIZE`, about 2 GiB).
    public static let maxInputByteCount = 0x7E00_0000

    /// The worst-case compressed size of `byteCount` input bytes, or `nil` if the input is too large.
    public static func compressBound(_ byteCount: Int) -> Int? {
        guard byteCount >= 0, byteCount <= maxInputByteCount else { return nil }
        return byteCount + byteCount / 255 + 16
    }

    /// Compresses `source` into `destination`.
    ///
    /// - Returns: the number of bytes written, or `nil` if `destination` is too small or `source` too large.
    ///   A `destination` of `compressBound(source.count)` bytes never fails.
    public static func compress(
        _ source: UnsafeRawBufferPointer,
        into destination: UnsafeMutableRawBufferPointer
    ) -> Int? {
        guard source.count <= maxInputByteCount, let output = destination.baseAddress, destination.count > 0 else {
            return nil
        }
        var writer = BlockWriter(base: output, capacity: destination.count)
        guard let input = source.baseAddress, source.count > 0 else {
            return writer.writeLastLiterals(from: UnsafeRawPointer(output), count: 0) ? writer.count : nil
        }
        return BlockCompressor(input: input, count: source.count).compress(into: &writer) ? writer.count : nil
    }

    /// Decompresses one LZ4 block that must expand to exactly `destination.count` bytes.
    ///
    /// An empty `destination` takes the format's empty block (the single byte 0).
    ///
    /// - Throws: `LZ4Error.corruptBlock` if the block is malformed, would read past its end or overrun
    ///   `destination`, refers to bytes before the start of the output, or decodes to a different length than
    ///   expected.
    public static func decompress(
        _ source: UnsafeRawBufferPointer,
        into destination: UnsafeMutableRawBufferPointer
    ) throws(LZ4Error) {
        guard let input = source.baseAddress, source.count > 0, source.count <= maxInputByteCount,
            destination.count <= maxInputByteCount
        else { throw .corruptBlock }
        var decoder = BlockDecoder(
            input: input,
            inputCount: source.count,
            output: destination.baseAddress,
            outputCount: destination.count
        )
        guard decoder.decode() else { throw .corruptBlock }
    }
}

extension LZ4 {
    /// Compresses `bytes`, returning the block (convenience for tests and tools; the wire codec compresses
    /// straight into its output buffer).
    public static func compress(_ bytes: [UInt8]) -> [UInt8] {
        let bound = compressBound(bytes.count)!
        var output = [UInt8](repeating: 0, count: bound)
        let written = bytes.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { destination in compress(source, into: destination) }
        }
        output.removeLast(bound - written!)
        return output
    }

    /// Decompresses a block that must expand to exactly `uncompressedByteCount` bytes.
    public static func decompress(_ block: [UInt8], uncompressedByteCount: Int) throws(LZ4Error) -> [UInt8] {
        guard uncompressedByteCount >= 0, uncompressedByteCount <= maxInputByteCount else { throw .corruptBlock }
        var output = [UInt8](repeating: 0, count: uncompressedByteCount)
        let decoded = block.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { destination in (try? decompress(source, into: destination)) != nil }
        }
        guard decoded else { throw .corruptBlock }
        return output
    }
}
