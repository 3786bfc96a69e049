internal import CFoyerLZ4

/// LZ4 block compression over liblz4.
///
/// Only the block format is used (no frame format): Foyer's wire protocol carries the uncompressed length
/// itself, so the receiver can bound the allocation before decoding and demand that the block decode to
/// exactly that many bytes. Decoding always goes through `LZ4_decompress_safe`, which never reads or writes
/// outside the buffers it is given, whatever the input.
public enum LZ4 {
    /// The largest input liblz4 accepts (`LZ4_MAX_INPUT_SIZE`, about 2 GiB).
    public static let maxInputByteCount = 0x7E00_0000

    /// The worst-case compressed size of `byteCount` input bytes, or `nil` if the input is too large.
    public static func compressBound(_ byteCount: Int) -> Int? {
        guard byteCount >= 0, byteCount <= maxInputByteCount else { return nil }
        return Int(LZ4_compressBound(Int32(byteCount)))
    }

    /// Compresses `source` into `destination` with the default (fast) level.
    ///
    /// - Returns: the number of bytes written, or `nil` if `destination` is too small or `source` too large.
    ///   A `destination` of `compressBound(source.count)` bytes never fails.
    public static func compress(
        _ source: UnsafeRawBufferPointer,
        into destination: UnsafeMutableRawBufferPointer
    ) -> Int? {
        guard source.count <= maxInputByteCount, destination.count > 0 else { return nil }
        let written = LZ4_compress_default(
            source.baseAddress?.assumingMemoryBound(to: CChar.self),
            destination.baseAddress!.assumingMemoryBound(to: CChar.self),
            Int32(source.count),
            Int32(clamping: destination.count)
        )
        return written > 0 ? Int(written) : nil
    }

    /// Decompresses one LZ4 block that must expand to exactly `destination.count` bytes.
    ///
    /// - Throws: `LZ4Error.corruptBlock` if the block is malformed, has a match offset of 0, would overrun
    ///   `destination`, or decodes to a different length than expected.
    public static func decompress(
        _ source: UnsafeRawBufferPointer,
        into destination: UnsafeMutableRawBufferPointer
    ) throws(LZ4Error) {
        guard source.count > 0, source.count <= maxInputByteCount, destination.count <= maxInputByteCount,
            !hasZeroOffset(source)
        else { throw .corruptBlock }
        // liblz4 wants a non-null destination even for an empty result; an empty block is never valid here.
        guard let destinationBase = destination.baseAddress else { throw .corruptBlock }
        let decoded = LZ4_decompress_safe(
            source.baseAddress!.assumingMemoryBound(to: CChar.self),
            destinationBase.assumingMemoryBound(to: CChar.self),
            Int32(source.count),
            Int32(destination.count)
        )
        guard decoded == destination.count else { throw .corruptBlock }
    }
}

extension LZ4 {
    /// Whether a sequence of `block` has the match offset 0, which the block format calls corrupt but
    /// `LZ4_decompress_safe` (1.9.4) takes, writing zeros; the Swift decoder refuses it, and so does this one. Reads
    /// only the tokens, lengths and offsets, the same way liblz4 walks them; where the walk runs off the end, the
    /// block is left to liblz4 to judge.
    static func hasZeroOffset(_ block: UnsafeRawBufferPointer) -> Bool {
        var position = 0
        func length(_ nibble: UInt8) -> Int? {
            var length = Int(nibble)
            guard nibble == 15 else { return length }
            while position < block.count {
                let byte = block[position]
                position += 1
                length += Int(byte)
                if byte != 255 { return length }
            }
            return nil
        }
        while position < block.count {
            let token = block[position]
            position += 1
            guard let literals = length(token >> 4), literals <= block.count - position - 2 else { return false }
            position += literals
            if block[position] == 0, block[position + 1] == 0 { return true }
            position += 2
            guard length(token & 0x0F) != nil else { return false }
        }
        return false
    }

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
        guard uncompressedByteCount > 0 else { throw .corruptBlock }
        var output = [UInt8](repeating: 0, count: uncompressedByteCount)
        let decoded = block.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { destination in (try? decompress(source, into: destination)) != nil }
        }
        guard decoded else { throw .corruptBlock }
        return output
    }
}

/// The one way an LZ4 block can fail to decode.
public struct LZ4Error: Error, Hashable, CustomStringConvertible {
    private enum Code: Hashable { case corruptBlock }
    private let code: Code

    /// The block is malformed, truncated, or does not expand to the declared length.
    public static let corruptBlock = LZ4Error(code: .corruptBlock)

    public var description: String { "LZ4 block is corrupt or does not match its declared length" }
}
