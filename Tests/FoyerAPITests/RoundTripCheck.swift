import FoyerTestSupport
import FoyerWire
import NIOCore

/// Checks one generated value of a message type: `WireMessageChecks.roundTrip` in full for bodies up to
/// `fullCheckByteCountMax`, a lighter check for longer ones (truncating a body of n bytes at every byte costs
/// n decodes of up to n bytes, too slow for hundreds of values at the limits).
struct RoundTripCheck: Sendable {
    /// Bodies up to this size get the full check: decoded equal, re-encoded to the same bytes, refused truncated at
    /// every byte and with a trailing byte.
    static let fullCheckByteCountMax = 128
    /// Longer bodies are truncated at this many lengths at each end and this many chosen at random between.
    static let sampledPrefixCount = 4

    let typeName: String
    /// Generates a value from the seed and checks it; throws what failed.
    let run: @Sendable (UInt64) throws -> Void

    init<M: Generated>(_: M.Type) {
        typeName = "\(M.self)"
        run = { seed in
            var values = WireValues(seed: seed)
            let message = M.generate(&values)
            let encoded = message.encoded()
            if encoded.readableBytes <= Self.fullCheckByteCountMax {
                try WireMessageChecks.roundTrip(message)
            } else {
                try Self.sampledRoundTrip(message, encoded: encoded, seed: seed)
            }
        }
    }

    /// The lighter check: as `WireMessageChecks.roundTrip`, but truncated only at the first and last
    /// `sampledPrefixCount` lengths and at `sampledPrefixCount` random lengths between.
    static func sampledRoundTrip<M: Generated>(_ message: M, encoded: ByteBuffer, seed: UInt64) throws {
        let decoded = try M(decoding: encoded)
        guard decoded == message else { throw RoundTripFailure("\(M.self): decodes to a different value") }
        guard decoded.encoded() == encoded else {
            throw RoundTripFailure("\(M.self): the decoded value encodes to different bytes")
        }
        let count = encoded.readableBytes
        var random = SplitMix64(seed: seed ^ 0x5A5A_5A5A)
        let between = (0..<sampledPrefixCount).map { _ in Int.random(in: 0..<count, using: &random) }
        let lengths = Array(0..<sampledPrefixCount) + Array((count - sampledPrefixCount)..<count) + between
        for length in lengths {
            let prefix = encoded.getSlice(at: encoded.readerIndex, length: length)!
            if (try? M(decoding: prefix)) != nil {
                throw RoundTripFailure("\(M.self): its first \(length) of \(count) bytes decode")
            }
        }
        var trailing = encoded
        trailing.writeInteger(UInt8(0))
        switch Result(catching: { () throws(WireError) in try M(decoding: trailing) }) {
        case .success:
            throw RoundTripFailure("\(M.self): a trailing byte is accepted")
        case .failure(let error) where error != .trailingBytes:
            throw RoundTripFailure("\(M.self): a trailing byte is refused with \(error), not trailingBytes")
        case .failure:
            break
        }
    }
}

struct RoundTripFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}
