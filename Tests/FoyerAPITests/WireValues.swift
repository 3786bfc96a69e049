import FoyerTestSupport
import NIOCore

/// The source of generated message fields: integers at and between their edges, strings and lists at their
/// decoders' limits and between, every case of an enum, optionals present and absent.
///
/// Everything comes from one seeded `SplitMix64`, so `WireValues(seed:)` with a seed from a failure message
/// generates the very value that failed.
struct WireValues {
    /// The characters strings are made of: each alphabet holds only what the fields using it accept.
    enum Alphabet {
        /// Any UTF-8: ASCII, two-, three- and four-byte scalars, a combining mark, a ZWJ sequence, controls.
        case unicode
        /// `unicode` without control characters (user-data's document keys).
        case printableUnicode
        /// Printable ASCII without space (`0x21…0x7E`): operation ids and idempotency keys.
        case printableASCII
        /// Letters, digits, `_` and `-`: uids.
        case uid
        /// Letters, digits, `_`, `.` and `-`: user-data's collections.
        case collection

        /// The pieces strings are made of, as UTF-8.
        var pieces: [[UInt8]] {
            switch self {
            case .unicode: Self.unicodePieces
            case .printableUnicode: Self.printableUnicodePieces
            case .printableASCII: Self.printableASCIIPieces
            case .uid: Self.uidPieces
            case .collection: Self.collectionPieces
            }
        }

        private static let unicodePieces = utf8(
            ["a", "Z", "0", " ", "é", "e\u{301}", "ß", "日本", "🎉", "👩‍👩‍👧", "\u{0}", "\n", "\u{7F}"]
        )
        private static let printableUnicodePieces = utf8(
            ["a", "Z", "0", " ", "é", "e\u{301}", "ß", "日本", "🎉", "👩‍👩‍👧", "/"]
        )
        private static let printableASCIIPieces = utf8(["a", "Z", "9", "!", "~", "-", ".", "{", "\"", "\\"])
        private static let uidPieces = utf8(["a", "Z", "0", "9", "_", "-"])
        private static let collectionPieces = utf8(["a", "Z", "0", "_", ".", "-"])

        private static func utf8(_ pieces: [String]) -> [[UInt8]] { pieces.map { Array($0.utf8) } }
    }

    private var random: SplitMix64
    /// Set while generating the elements of a list of more than 16 (its maximum count), so those elements stay
    /// small (a page of 1000 documents of 1 MiB each would take a gigabyte).
    private var small = false

    init(seed: UInt64) {
        random = SplitMix64(seed: seed)
    }

    mutating func bool() -> Bool { random.next() & 1 == 1 }

    /// True once in `n` times.
    mutating func oneIn(_ n: UInt64) -> Bool { random.next(upperBound: n) == 0 }

    mutating func pick<T>(_ options: [T]) -> T { options[Int(random.next(upperBound: UInt64(options.count)))] }

    mutating func anyCase<T: CaseIterable>(of _: T.Type) -> T { pick(Array(T.allCases)) }

    /// A value in `range`: either end, one next to an end, or anything between.
    mutating func integer<T: FixedWidthInteger>(in range: ClosedRange<T>) -> T {
        switch random.next(upperBound: 6 as UInt64) {
        case 0: return range.lowerBound
        case 1: return range.upperBound
        case 2: return range.lowerBound == range.upperBound ? range.lowerBound : range.lowerBound + 1
        case 3:
            let span = range.upperBound.subtractingReportingOverflow(range.lowerBound)
            let step = span.overflow || span.partialValue > 300 ? 300 : span.partialValue
            return range.lowerBound + T.random(in: 0...step, using: &random)
        default: return T.random(in: range, using: &random)
        }
    }

    /// Any value of the type, edges included.
    mutating func integer<T: FixedWidthInteger>(_: T.Type = T.self) -> T { integer(in: T.min...T.max) }

    /// A length or count in `minimum...maximum`: the minimum, the maximum (rarer, as such values are large), or a
    /// small one between.
    mutating func length(_ minimum: Int = 0, _ maximum: Int) -> Int {
        switch small ? 2 : random.next(upperBound: 16 as UInt64) {
        case 0: minimum
        case 1: maximum
        default: Int.random(in: minimum...min(maximum, minimum + 12), using: &random)
        }
    }

    /// A string of `minBytes...maxBytes` UTF-8 bytes, made of `alphabet`; either limit exactly now and then.
    mutating func text(_ alphabet: Alphabet = .unicode, minBytes: Int = 0, maxBytes: Int) -> String {
        let target = length(minBytes, maxBytes)
        let pieces = alphabet.pieces
        var text: [UInt8] = []
        text.reserveCapacity(target)
        while text.count < target {
            let piece = pieces[Int(random.next(upperBound: UInt64(pieces.count)))]
            guard text.count + piece.count <= target else { break }
            text += piece
        }
        // Fills up with one-byte "a"s (every alphabet has it) so the limits are met exactly.
        text += [UInt8](repeating: UInt8(ascii: "a"), count: target - text.count)
        return String(decoding: text, as: UTF8.self)
    }

    /// Random bytes; past the first 64, the 64th repeated (random bytes one by one are slow at 1 MiB).
    mutating func bytes(minBytes: Int = 0, maxBytes: Int) -> [UInt8] {
        let count = length(minBytes, maxBytes)
        let head = (0..<min(count, 64)).map { _ in UInt8.random(in: 0...255, using: &random) }
        return head + [UInt8](repeating: head.last ?? 0, count: count - head.count)
    }

    mutating func buffer(minBytes: Int = 0, maxBytes: Int) -> ByteBuffer {
        ByteBuffer(bytes: bytes(minBytes: minBytes, maxBytes: maxBytes))
    }

    mutating func optional<T>(_ make: (inout WireValues) -> T) -> T? { bool() ? make(&self) : nil }

    /// A list of `minCount...maxCount` elements: the maximum count once in 64 lists (of small elements), else up to
    /// 12 more than the minimum.
    mutating func list<T>(minCount: Int = 0, maxCount: Int, _ make: (inout WireValues) -> T) -> [T] {
        let count = oneIn(64) ? maxCount : min(length(minCount, maxCount), minCount + 12)
        let wasSmall = small
        small = small || count > 16
        defer { small = wasSmall }
        return (0..<count).map { _ in make(&self) }
    }

    /// A message of a generated type.
    mutating func message<M: Generated>(_: M.Type = M.self) -> M { M.generate(&self) }
}
