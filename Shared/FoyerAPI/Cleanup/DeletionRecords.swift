public import FoyerWire
public import NIOCore

/// `listDeletions` answer: a list (<= 1000) of `string pseudonymousID` (hex), `u8 reason`, `u64 deletedAtMilliseconds`.
public struct DeletionRecords: WireMessage, Hashable {
    public struct Record: Hashable, Sendable {
        public var pseudonymousID: String
        public var reason: DeletionReason
        public var deletedAtMilliseconds: UInt64

        public init(pseudonymousID: String, reason: DeletionReason, deletedAtMilliseconds: UInt64) {
            self.pseudonymousID = pseudonymousID
            self.reason = reason
            self.deletedAtMilliseconds = deletedAtMilliseconds
        }
    }

    public var records: [Record]

    public init(records: [Record]) { self.records = records }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        let count = try buffer.readCount("deletions", maxCount: 1000, minElementBytes: 10)
        records = []
        records.reserveCapacity(count)
        for _ in 0..<count {
            records.append(
                Record(
                    pseudonymousID: try buffer.readLengthPrefixedString("deletion.id", maxBytes: 128),
                    reason: try buffer.readEnum(DeletionReason.self, "deletion.reason"),
                    deletedAtMilliseconds: try buffer.readWire()
                )
            )
        }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeVarint(UInt64(records.count))
        for record in records {
            buffer.writeLengthPrefixedString(record.pseudonymousID)
            buffer.writeInteger(record.reason.rawValue)
            buffer.writeInteger(record.deletedAtMilliseconds)
        }
    }
}
