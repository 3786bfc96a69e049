public import FoyerWire
public import NIOCore

/// The checks every wire contract test makes of a message's encoding, for any `WireMessage`.
///
/// ```swift
/// try WireMessageChecks.roundTrip(SignOutResponse(accountDeleted: true))
/// ```
public enum WireMessageChecks {
    /// Bodies up to this size are truncated at every byte; longer ones at every byte of their first and last
    /// `prefixEdgeByteCount` bytes and every `prefixEdgeByteCount`-th byte between (a 1 MiB value would otherwise
    /// cost a million decodes).
    public static let everyPrefixByteCountMax = 64 << 10
    public static let prefixEdgeByteCount = 4096

    /// Encodes `message` and checks that:
    /// - decoding the body gives back an equal value, and encoding that value gives back the same bytes (one
    ///   encoding per value);
    /// - the body truncated at every byte is refused;
    /// - the body with one more byte is refused with `trailingBytes`.
    ///
    /// - Throws: `WireMessageCheckFailure` naming the first check that failed.
    public static func roundTrip<M: WireMessage & Equatable>(_ message: M) throws(WireMessageCheckFailure) {
        let encoded = message.encoded()
        let decoded: M
        do {
            decoded = try M(decoding: encoded)
        } catch {
            throw WireMessageCheckFailure("\(M.self): its own encoding is refused: \(error)")
        }
        guard decoded == message else {
            throw WireMessageCheckFailure("\(M.self): decodes to \(decoded), not \(message)")
        }
        guard decoded.encoded() == encoded else {
            throw WireMessageCheckFailure("\(M.self): the decoded value encodes to different bytes")
        }
        for length in prefixLengths(of: encoded.readableBytes) {
            let prefix = encoded.getSlice(at: encoded.readerIndex, length: length)!
            if let accepted = try? M(decoding: prefix) {
                throw WireMessageCheckFailure(
                    "\(M.self): its first \(length) of \(encoded.readableBytes) bytes decode to \(accepted)"
                )
            }
        }
        var trailing = encoded
        trailing.writeInteger(UInt8(0))
        switch Result(catching: { () throws(WireError) in try M(decoding: trailing) }) {
        case .success(let accepted):
            throw WireMessageCheckFailure("\(M.self): a trailing byte is accepted, decoding to \(accepted)")
        case .failure(let error) where error != .trailingBytes:
            throw WireMessageCheckFailure("\(M.self): a trailing byte is refused with \(error), not trailingBytes")
        case .failure:
            break
        }
    }

    /// Decodes `message`'s body with the byte at `offset` set to each of the 256 values in turn (a `u8` tag, a
    /// `bool`, an optional's presence flag), for tests of which values a decoder accepts.
    ///
    /// - Returns: 256 outcomes, indexed by the byte's value.
    public static func decodingEachValue<M: WireMessage>(ofByteAt offset: Int, of message: M) -> [Result<M, WireError>]
    {
        let encoded = message.encoded()
        precondition(offset < encoded.readableBytes, "offset \(offset) is outside the \(M.self) body")
        return (0...UInt8.max).map { value in
            var body = encoded
            body.setInteger(value, at: encoded.readerIndex + offset)
            return Result { () throws(WireError) in try M(decoding: body) }
        }
    }

    /// The prefix lengths `roundTrip` tries for a body of `count` bytes: all of `0..<count` up to
    /// `everyPrefixByteCountMax`.
    static func prefixLengths(of count: Int) -> [Int] {
        guard count > everyPrefixByteCountMax else { return Array(0..<count) }
        let edge = prefixEdgeByteCount
        let middle = stride(from: edge, to: count - edge, by: edge)
        return Array(0..<edge) + Array(middle) + Array((count - edge)..<count)
    }
}

/// A `WireMessageChecks` check that failed, with what was wrong (messages in tests carry no secrets).
public struct WireMessageCheckFailure: Error, CustomStringConvertible {
    public let description: String

    init(_ description: String) { self.description = description }
}
