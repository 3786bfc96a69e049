/// Decodes one LZ4 block into a destination of exactly the expected size.
///
/// Every length and offset read from the block is checked against what is left of the input and of the output
/// before a byte is copied, so no input, however hostile, makes it read or write out of bounds or trap. It
/// accepts the blocks liblz4's `LZ4_decompress_safe` accepts for a full block: the last sequence is literals
/// only and ends the input, a match ends at least 5 bytes before the end of the output, the last match starts
/// at least 12 bytes before it, and an offset is 1 or more and reaches no further back than the output's start.
struct BlockDecoder {
    private let input: UnsafeRawPointer
    private let inputCount: Int
    private let output: UnsafeMutableRawPointer?
    private let outputCount: Int
    private var inputPosition = 0
    private var outputPosition = 0

    /// The input bytes a sequence other than the last needs after its literals: a 2-byte offset, and the
    /// next token with at least 5 literals.
    private static let inputAfterLiteralsMin = 2 + 1 + BlockFormat.lastLiterals

    init(input: UnsafeRawPointer, inputCount: Int, output: UnsafeMutableRawPointer?, outputCount: Int) {
        self.input = input
        self.inputCount = inputCount
        self.output = output
        self.outputCount = outputCount
    }

    /// Decodes the whole block; `true` if it is well formed and fills the output exactly.
    mutating func decode() -> Bool {
        while true {
            guard inputPosition < inputCount else { return false }
            let token = Int(input.load(fromByteOffset: inputPosition, as: UInt8.self))
            inputPosition += 1
            guard let literalCount = readLength(nibble: token >> 4) else { return false }
            let inputLeft = inputCount - inputPosition
            let outputLeft = outputCount - outputPosition
            guard literalCount <= inputLeft, literalCount <= outputLeft else { return false }
            if outputLeft - literalCount < BlockFormat.matchStartLimit
                || inputLeft - literalCount < Self.inputAfterLiteralsMin
            {
                // Only the last sequence may come this close to either end, and it must end both exactly.
                guard literalCount == inputLeft, literalCount == outputLeft else { return false }
                copyLiterals(literalCount, withSlack: false)
                return true
            }
            // At least 8 input bytes and 12 output bytes follow these literals: room to copy whole words.
            copyLiterals(literalCount, withSlack: true)
            guard copyMatch(token: token) else { return false }
        }
    }

    /// Reads a match's offset and length (the input holds at least 8 more bytes) and copies it.
    @inline(__always)
    private mutating func copyMatch(token: Int) -> Bool {
        let offset =
            Int(input.load(fromByteOffset: inputPosition, as: UInt8.self))
            | Int(input.load(fromByteOffset: inputPosition + 1, as: UInt8.self)) << 8
        inputPosition += 2
        guard offset > 0, offset <= outputPosition, let extra = readLength(nibble: token & 0x0F) else {
            return false
        }
        let length = extra + BlockFormat.minMatch
        guard length <= outputCount - outputPosition - BlockFormat.lastLiterals, let output else { return false }
        let start = output + outputPosition
        let source = start - offset
        if offset >= 8, outputCount - outputPosition - length >= 8, length <= 64 || offset < length {
            // Word by word, up to 7 bytes past the end (rewritten later): each word reads only bytes already in
            // place, as they lie at least 8 bytes back.
            Self.copyWords(to: start, from: UnsafeRawPointer(source), count: length)
        } else if offset >= length {
            start.copyMemory(from: source, byteCount: length)
        } else {
            // The match overlaps what it writes: copy the repeating pattern in chunks that never overlap, each
            // twice the last (so the copied prefix stays a whole number of periods).
            var copied = 0
            while copied < length {
                let chunk = min(length - copied, offset + copied)
                (start + copied).copyMemory(from: source, byteCount: chunk)
                copied += chunk
            }
        }
        outputPosition += length
        return true
    }

    /// A length: the token's nibble, plus the bytes that follow when it is 15 (each added; 255 means another
    /// follows). `nil` if the input ends first or the length exceeds the whole output.
    @inline(__always)
    private mutating func readLength(nibble: Int) -> Int? {
        var length = nibble
        guard nibble == BlockFormat.lengthNibbleMax else { return length }
        while true {
            guard inputPosition < inputCount else { return nil }
            let byte = Int(input.load(fromByteOffset: inputPosition, as: UInt8.self))
            inputPosition += 1
            length += byte
            guard length <= outputCount else { return nil }
            if byte != 255 { return length }
        }
    }

    /// Copies `count` literals (already checked against both ends). `withSlack`: at least 7 more bytes can be
    /// read after them and written after them, so short runs go word by word.
    @inline(__always)
    private mutating func copyLiterals(_ count: Int, withSlack: Bool) {
        guard count > 0, let output else { return }
        if withSlack, count <= 64 {
            Self.copyWords(to: output + outputPosition, from: input + inputPosition, count: count)
        } else {
            (output + outputPosition).copyMemory(from: input + inputPosition, byteCount: count)
        }
        inputPosition += count
        outputPosition += count
    }

    /// Copies `count` bytes 8 at a time, from lower addresses up, reading and writing up to 7 bytes past both.
    @inline(__always)
    private static func copyWords(to destination: UnsafeMutableRawPointer, from source: UnsafeRawPointer, count: Int) {
        var copied = 0
        repeat {
            let word = source.loadUnaligned(fromByteOffset: copied, as: UInt64.self)
            destination.storeBytes(of: word, toByteOffset: copied, as: UInt64.self)
            copied += 8
        } while copied < count
    }
}
