/// The limits of the LZ4 block format that both the compressor and the decoder keep.
enum BlockFormat {
    /// The shortest match a sequence can carry (a match length nibble of 0 means 4 bytes).
    static let minMatch = 4
    /// The last bytes of a block are always literals.
    static let lastLiterals = 5
    /// The last match starts at least this many bytes before the end of the block (`MFLIMIT`).
    static let matchStartLimit = 12
    /// The farthest back a match can refer (a 2-byte offset; 0 is invalid).
    static let maxOffset = 65_535
    /// A length nibble of 15 says that extra length bytes follow.
    static let lengthNibbleMax = 15
}
