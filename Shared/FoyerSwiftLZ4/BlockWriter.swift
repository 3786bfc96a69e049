/// Writes sequences into a fixed destination, refusing (rather than overrunning) when it is full.
struct BlockWriter {
    private let base: UnsafeMutableRawPointer
    private let capacity: Int
    /// Bytes written so far.
    private(set) var count = 0

    init(base: UnsafeMutableRawPointer, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    /// Writes one sequence: `literalCount` literals from `literals`, then a match of `matchLength` bytes
    /// `offset` bytes back. Returns `false`, having written nothing, if the destination is too small.
    @inline(__always)
    mutating func writeSequence(
        literals: UnsafeRawPointer,
        literalCount: Int,
        offset: Int,
        matchLength: Int
    ) -> Bool {
        let matchExtra = matchLength - BlockFormat.minMatch
        let needed = 1 + Self.extraByteCount(literalCount) + literalCount + 2 + Self.extraByteCount(matchExtra)
        guard needed <= capacity - count else { return false }
        let token =
            UInt8(min(literalCount, BlockFormat.lengthNibbleMax)) << 4
            | UInt8(min(matchExtra, BlockFormat.lengthNibbleMax))
        put(token)
        putExtraLength(literalCount)
        // The input goes on past a sequence's literals (at least 12 bytes), so a short run can go word by word
        // when the destination has room for the overshoot too.
        if literalCount <= 64, needed + 8 <= capacity - count {
            var copied = 0
            while copied < literalCount {
                let word = literals.loadUnaligned(fromByteOffset: copied, as: UInt64.self)
                (base + count).storeBytes(of: word, toByteOffset: copied, as: UInt64.self)
                copied += 8
            }
            count += literalCount
        } else {
            putLiterals(literals, literalCount)
        }
        put(UInt8(truncatingIfNeeded: offset))
        put(UInt8(truncatingIfNeeded: offset >> 8))
        putExtraLength(matchExtra)
        return true
    }

    /// Writes the block's last sequence, `literalCount` literals and no match. Returns `false`, having written
    /// nothing, if the destination is too small.
    mutating func writeLastLiterals(from literals: UnsafeRawPointer, count literalCount: Int) -> Bool {
        guard 1 + Self.extraByteCount(literalCount) + literalCount <= capacity - count else { return false }
        put(UInt8(min(literalCount, BlockFormat.lengthNibbleMax)) << 4)
        putExtraLength(literalCount)
        putLiterals(literals, literalCount)
        return true
    }

    /// The bytes a length needs after its token nibble.
    private static func extraByteCount(_ length: Int) -> Int {
        length < BlockFormat.lengthNibbleMax ? 0 : (length - BlockFormat.lengthNibbleMax) / 255 + 1
    }

    private mutating func put(_ byte: UInt8) {
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    @inline(__always)
    private mutating func putExtraLength(_ length: Int) {
        guard length >= BlockFormat.lengthNibbleMax else { return }
        var remaining = length - BlockFormat.lengthNibbleMax
        while remaining >= 255 {
            put(255)
            remaining -= 255
        }
        put(UInt8(remaining))
    }

    private mutating func putLiterals(_ literals: UnsafeRawPointer, _ literalCount: Int) {
        guard literalCount > 0 else { return }
        (base + count).copyMemory(from: literals, byteCount: literalCount)
        count += literalCount
    }
}
