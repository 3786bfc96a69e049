public import FoyerWire
public import NIOCore

/// What a merge moved. A retry with the same op id answers the same report.
///
/// ```
/// bool                 guestFound   false when the guest had no quota account (nothing to move)
/// list MergedCounter   counters     <= 256, sorted by name: what was added to each of the account's counters
/// ```
/// `MergedCounter`: `string counter` (<= 64 bytes), `varint added`.
public struct QuotaMergeResponse: WireMessage, Hashable {
    public struct MergedCounter: Sendable, Hashable {
        public var counter: String
        public var added: UInt64

        public init(counter: String, added: UInt64) {
            self.counter = counter
            self.added = added
        }
    }

    public var guestFound: Bool
    public var counters: [MergedCounter]

    public init(guestFound: Bool, counters: [MergedCounter]) {
        self.guestFound = guestFound
        self.counters = counters
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        guestFound = try buffer.readBool()
        let count = try buffer.readCount("merge.counters", maxCount: GuestQuotaLimits.entriesMax, minElementBytes: 2)
        counters = []
        counters.reserveCapacity(count)
        for _ in 0..<count {
            let name = try buffer.readLengthPrefixedString("merge.counter", maxBytes: GuestQuotaLimits.nameByteCountMax)
            counters.append(MergedCounter(counter: name, added: try buffer.readVarint()))
        }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeBool(guestFound)
        buffer.writeVarint(UInt64(counters.count))
        for counter in counters {
            buffer.writeLengthPrefixedString(counter.counter)
            buffer.writeVarint(counter.added)
        }
    }
}
