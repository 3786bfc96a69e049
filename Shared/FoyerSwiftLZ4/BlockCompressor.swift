/// A greedy LZ4 block compressor like liblz4's fast mode: a table of the last position each 4-byte hash was
/// seen at, the first candidate that really matches taken, extended backwards over pending literals and
/// forwards as far as the block allows; the search steps faster through input that does not match.
struct BlockCompressor {
    private let input: UnsafeRawPointer
    private let count: Int

    /// The largest hash table, in entries (liblz4's default: 4,096 four-byte positions, 16 KiB).
    private static let hashBitsMax = 12
    /// The search steps one byte further after every `1 << skipTrigger` misses.
    private static let skipTrigger = 6

    init(input: UnsafeRawPointer, count: Int) {
        self.input = input
        self.count = count
    }

    /// Compresses the whole input into `writer`; `false` if it does not fit.
    func compress(into writer: inout BlockWriter) -> Bool {
        // Inputs too short for any match, and whatever follows the last match, are literals.
        guard count > BlockFormat.matchStartLimit else {
            return writer.writeLastLiterals(from: input, count: count)
        }
        // A smaller table for a small input: clearing it is most of the cost of a short block.
        let hashBits = min(Self.hashBitsMax, max(6, Int.bitWidth - (count - 1).leadingZeroBitCount))
        return withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 1 << hashBits) { table in
            table.initialize(repeating: 0)
            guard let anchor = compressSequences(into: &writer, table: table, hashBits: hashBits) else {
                return false
            }
            return writer.writeLastLiterals(from: input + anchor, count: count - anchor)
        }
    }

    /// Writes every sequence that has a match; returns where the trailing literals start, or `nil` if the
    /// destination is full.
    private func compressSequences(
        into writer: inout BlockWriter,
        table: UnsafeMutableBufferPointer<UInt32>,
        hashBits: Int
    ) -> Int? {
        let lastMatchStart = count - BlockFormat.matchStartLimit
        let matchEndLimit = count - BlockFormat.lastLiterals
        var anchor = 0
        var position = 1
        table[hash(at: 0, bits: hashBits)] = 0
        while true {
            guard var (start, reference) = findMatch(from: position, upTo: lastMatchStart, table, hashBits) else {
                return anchor
            }
            while start > anchor, reference > 0, byte(start - 1) == byte(reference - 1) {
                start -= 1
                reference -= 1
            }
            let length =
                BlockFormat.minMatch
                + commonLength(
                    start + BlockFormat.minMatch,
                    reference + BlockFormat.minMatch,
                    limit: matchEndLimit
                )
            guard
                writer.writeSequence(
                    literals: input + anchor,
                    literalCount: start - anchor,
                    offset: start - reference,
                    matchLength: length
                )
            else { return nil }
            anchor = start + length
            position = anchor
            guard position <= lastMatchStart else { return anchor }
            table[hash(at: position - 2, bits: hashBits)] = UInt32(position - 2)
        }
    }

    /// The first position from `position` on (at most `limit`) whose 4 bytes equal those at the position the
    /// table remembers for their hash, within the window; every position looked at is remembered.
    private func findMatch(
        from position: Int,
        upTo limit: Int,
        _ table: UnsafeMutableBufferPointer<UInt32>,
        _ hashBits: Int
    ) -> (start: Int, reference: Int)? {
        var next = position
        var attempts = 1 << Self.skipTrigger
        while true {
            let current = next
            next += attempts >> Self.skipTrigger
            attempts += 1
            guard current <= limit else { return nil }
            let sequence = load32(current)
            let slot = Int(hash(sequence, bits: hashBits))
            let reference = Int(table[slot])
            table[slot] = UInt32(current)
            if current - reference <= BlockFormat.maxOffset, load32(reference) == sequence {
                return (current, reference)
            }
        }
    }

    /// How many bytes from `start` equal those from `reference`, stopping at `limit`.
    private func commonLength(_ start: Int, _ reference: Int, limit: Int) -> Int {
        var position = start
        var other = reference
        while position + 8 <= limit {
            let difference = load64(position) ^ load64(other)
            if difference != 0 { return position - start + difference.trailingZeroBitCount / 8 }
            position += 8
            other += 8
        }
        while position < limit, byte(position) == byte(other) {
            position += 1
            other += 1
        }
        return position - start
    }

    private func hash(at position: Int, bits: Int) -> Int {
        Int(hash(load32(position), bits: bits))
    }

    /// Knuth's multiplicative hash of 4 bytes, as liblz4 uses.
    private func hash(_ sequence: UInt32, bits: Int) -> UInt32 {
        (sequence &* 2_654_435_761) >> UInt32(32 - bits)
    }

    private func byte(_ position: Int) -> UInt8 {
        input.load(fromByteOffset: position, as: UInt8.self)
    }

    private func load32(_ position: Int) -> UInt32 {
        input.loadUnaligned(fromByteOffset: position, as: UInt32.self)
    }

    /// Eight bytes with the first in the lowest bits, whatever the machine's byte order.
    private func load64(_ position: Int) -> UInt64 {
        UInt64(littleEndian: input.loadUnaligned(fromByteOffset: position, as: UInt64.self))
    }
}
