import FoyerTestSupport
import FoyerWire
import NIOCore
import Testing

/// The checks the gateway's contract tests rely on must catch the faults they are there for.
@Suite("WireMessageChecks catches broken encodings")
struct WireMessageChecksTests {
    /// Reads its second field only if bytes are left: a truncated body decodes.
    private struct OptionalTail: WireMessage, Equatable {
        var head: UInt8
        var tail: UInt8?
        init(head: UInt8, tail: UInt8?) {
            self.head = head
            self.tail = tail
        }
        init(from buffer: inout ByteBuffer) throws(WireError) {
            head = try buffer.readWire()
            tail = buffer.readInteger(as: UInt8.self)
        }
        func encode(into buffer: inout ByteBuffer) {
            buffer.writeInteger(head)
            if let tail { buffer.writeInteger(tail) }
        }
    }

    /// Writes a field its decoder skips and its equality ignores: one value, two encodings.
    private struct SkippedField: WireMessage, Equatable {
        var value: UInt8
        var padding: UInt8
        init(value: UInt8, padding: UInt8) {
            self.value = value
            self.padding = padding
        }
        init(from buffer: inout ByteBuffer) throws(WireError) {
            value = try buffer.readWire()
            _ = try buffer.readWire(UInt8.self)
            padding = 0
        }
        func encode(into buffer: inout ByteBuffer) {
            buffer.writeInteger(value)
            buffer.writeInteger(padding)
        }
        static func == (lhs: Self, rhs: Self) -> Bool { lhs.value == rhs.value }
    }

    /// Decodes to something else than was encoded.
    private struct Lossy: WireMessage, Equatable {
        var value: UInt16
        init(value: UInt16) { self.value = value }
        init(from buffer: inout ByteBuffer) throws(WireError) { value = UInt16(try buffer.readWire(UInt8.self)) }
        func encode(into buffer: inout ByteBuffer) { buffer.writeInteger(UInt8(truncatingIfNeeded: value)) }
    }

    @Test("A body that decodes when truncated, a value with two encodings, a lossy decoder: each is reported")
    func faultsAreReported() throws {
        // Without its tail, the trailing byte is taken for one; with it, the body cut before it still decodes.
        #expect(throws: WireMessageCheckFailure.self) {
            try WireMessageChecks.roundTrip(OptionalTail(head: 1, tail: nil))
        }
        #expect(throws: WireMessageCheckFailure.self) {
            try WireMessageChecks.roundTrip(OptionalTail(head: 1, tail: 2))
        }
        #expect(throws: WireMessageCheckFailure.self) {
            try WireMessageChecks.roundTrip(RawBody(ByteBuffer(bytes: [1])))
        }
        try WireMessageChecks.roundTrip(SkippedField(value: 1, padding: 0))
        #expect(throws: WireMessageCheckFailure.self) {
            try WireMessageChecks.roundTrip(SkippedField(value: 1, padding: 9))
        }
        try WireMessageChecks.roundTrip(Lossy(value: 255))
        #expect(throws: WireMessageCheckFailure.self) { try WireMessageChecks.roundTrip(Lossy(value: 256)) }
    }

    @Test("decodingEachValue answers the outcome of each of the 256 values at the offset")
    func eachValue() {
        let outcomes = WireMessageChecks.decodingEachValue(ofByteAt: 1, of: SkippedField(value: 7, padding: 0))
        #expect(outcomes.count == 256)
        #expect(outcomes.allSatisfy { $0 == .success(SkippedField(value: 7, padding: 0)) })
        let heads = WireMessageChecks.decodingEachValue(ofByteAt: 0, of: OptionalTail(head: 7, tail: 8))
        #expect(heads[9] == .success(OptionalTail(head: 9, tail: 8)))
        #expect(heads[255] == .success(OptionalTail(head: 255, tail: 8)))
    }
}
