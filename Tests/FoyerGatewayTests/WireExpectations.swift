import FoyerTestSupport
import FoyerWire
import NIOCore
import Testing

/// Expectations the gateway's contract tests share, on top of `WireMessageChecks`.
enum WireExpectations {
    /// `make(cap)` decodes to itself and `make(cap + 1)` is refused with `error`: `make(n)` builds a message with
    /// one field `n` bytes long, or one list `n` elements long.
    static func cap<M: WireMessage & Equatable>(
        _ cap: Int,
        refusedWith error: WireError = .lengthOverLimit,
        sourceLocation: SourceLocation = #_sourceLocation,
        _ make: (Int) -> M
    ) {
        let atCap = make(cap)
        switch Result(catching: { () throws(WireError) in try M(decoding: atCap.encoded()) }) {
        case .success(let decoded) where decoded == atCap:
            break
        case .success:
            Issue.record("\(M.self) at its cap of \(cap) decodes to another value", sourceLocation: sourceLocation)
        case .failure(let error):
            Issue.record("\(M.self) at its cap of \(cap) is refused: \(error)", sourceLocation: sourceLocation)
        }
        #expect(throws: error, sourceLocation: sourceLocation) { try M(decoding: make(cap + 1).encoded()) }
    }

    /// The `u8` at `offset` of `message`'s body: the values in `valid` decode (when the rest of the body still
    /// fits them, as for a provider or a `bool`), every other value is refused with `invalidValue`.
    static func tag<M: WireMessage & Equatable>(
        of message: M,
        at offset: Int,
        valid: Set<UInt8>,
        validKeepLayout: Bool = true,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let outcomes = WireMessageChecks.decodingEachValue(ofByteAt: offset, of: message)
        var problems: [String] = []
        for (value, outcome) in zip(0...UInt8.max, outcomes) {
            switch outcome {
            case .success where !valid.contains(value):
                problems.append("accepts \(value)")
            case .failure(let error) where !valid.contains(value) && error != .invalidValue:
                problems.append("refuses \(value) with \(error), not invalidValue")
            case .failure(let error) where valid.contains(value) && validKeepLayout:
                problems.append("refuses \(value): \(error)")
            default:
                break
            }
        }
        if !problems.isEmpty {
            let shown = problems.prefix(4).joined(separator: "; ")
            Issue.record(
                "\(M.self), byte \(offset): \(shown)\(problems.count > 4 ? " (\(problems.count) values in all)" : "")",
                sourceLocation: sourceLocation
            )
        }
    }

    /// Fields encoded one after the other, to build a body by hand or to find a field's offset.
    static func body(_ write: (inout ByteBuffer) -> Void) -> ByteBuffer {
        var buffer = ByteBuffer()
        write(&buffer)
        return buffer
    }

    /// Varints a hostile peer sends as a length or a count: over any cap, up to the largest 64-bit value.
    static let hostileVarints: [UInt64] = [1 << 20 + 1, 1 << 31, 1 << 32, 1 << 63, .max]
}
