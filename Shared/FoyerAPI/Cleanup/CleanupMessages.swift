public import FoyerWire
public import NIOCore

/// `recordDeletion`:
/// ```
/// string operationID   1–128 bytes: the delete-everything operation; recording it again changes nothing
/// string uid           <= 64 bytes: kept only as a keyed hash (a pseudonymous id), never as is
/// u8     reason        DeletionReason
/// ```
public struct RecordDeletionRequest: WireMessage, Hashable {
    public var operationID: String
    public var uid: String
    public var reason: DeletionReason

    public init(operationID: String, uid: String, reason: DeletionReason) {
        self.operationID = operationID
        self.uid = uid
        self.reason = reason
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        operationID = try buffer.readLengthPrefixedString("recordDeletion.operationID", maxBytes: 128)
        guard !operationID.isEmpty else { throw .invalidValue("recordDeletion.operationID") }
        uid = try buffer.readLengthPrefixedString("recordDeletion.uid", maxBytes: 64)
        reason = try buffer.readEnum(DeletionReason.self, "recordDeletion.reason")
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(operationID)
        buffer.writeLengthPrefixedString(uid)
        buffer.writeInteger(reason.rawValue)
    }
}

/// `sweep`: `bool dryRun`.
public struct SweepRequest: WireMessage, Hashable {
    public var dryRun: Bool

    public init(dryRun: Bool) { self.dryRun = dryRun }

    public init(from buffer: inout ByteBuffer) throws(WireError) { dryRun = try buffer.readBool() }

    public func encode(into buffer: inout ByteBuffer) { buffer.writeBool(dryRun) }
}

/// What one sweep did (or, dry, would do):
/// ```
/// bool   dryRun
/// u64    startedAtMilliseconds, u64 finishedAtMilliseconds   since the Unix epoch
/// varint expiredGuests      guests idle past the TTL: deleted (or, dry, found)
/// varint stuckFinished      accounts left merging or deleting past the grace, driven to the end (dry: found)
/// varint errors             accounts that failed and stay for the next sweep
/// string lastError          <= 1024 bytes, "" if none
/// varint skipped            accounts found but left alone: the guest became active or linked, another replica
///                           had claimed it, or it was already gone (dry: 0)
/// varint recordsPurged      deletion records older than the retention, removed (dry: 0)
/// ```
public struct SweepReport: WireMessage, Hashable {
    public var dryRun: Bool
    public var startedAtMilliseconds: UInt64
    public var finishedAtMilliseconds: UInt64
    public var expiredGuests: UInt64
    public var stuckFinished: UInt64
    public var errors: UInt64
    public var lastError: String
    public var skipped: UInt64
    public var recordsPurged: UInt64

    public init(
        dryRun: Bool,
        startedAtMilliseconds: UInt64,
        finishedAtMilliseconds: UInt64,
        expiredGuests: UInt64,
        stuckFinished: UInt64,
        errors: UInt64,
        lastError: String,
        skipped: UInt64 = 0,
        recordsPurged: UInt64 = 0
    ) {
        self.dryRun = dryRun
        self.startedAtMilliseconds = startedAtMilliseconds
        self.finishedAtMilliseconds = finishedAtMilliseconds
        self.expiredGuests = expiredGuests
        self.stuckFinished = stuckFinished
        self.errors = errors
        self.lastError = lastError
        self.skipped = skipped
        self.recordsPurged = recordsPurged
    }

    /// How long the sweep took, in milliseconds.
    public var durationMilliseconds: UInt64 { finishedAtMilliseconds &- startedAtMilliseconds }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        dryRun = try buffer.readBool()
        startedAtMilliseconds = try buffer.readWire()
        finishedAtMilliseconds = try buffer.readWire()
        expiredGuests = try buffer.readVarint()
        stuckFinished = try buffer.readVarint()
        errors = try buffer.readVarint()
        lastError = try buffer.readLengthPrefixedString("sweep.lastError", maxBytes: 1024)
        skipped = try buffer.readVarint()
        recordsPurged = try buffer.readVarint()
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeBool(dryRun)
        buffer.writeMultipleIntegers(startedAtMilliseconds, finishedAtMilliseconds)
        buffer.writeVarint(expiredGuests)
        buffer.writeVarint(stuckFinished)
        buffer.writeVarint(errors)
        buffer.writeLengthPrefixedString(lastError, truncatingToBytes: 1024)
        buffer.writeVarint(skipped)
        buffer.writeVarint(recordsPurged)
    }
}

/// `status`: `bool running`, `optional SweepReport lastSweep` (the last finished, non-dry sweep of this replica).
public struct CleanupStatusResponse: WireMessage, Hashable {
    public var running: Bool
    public var lastSweep: SweepReport?

    public init(running: Bool, lastSweep: SweepReport?) {
        self.running = running
        self.lastSweep = lastSweep
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        running = try buffer.readBool()
        lastSweep = try buffer.readOptional { (buffer) throws(WireError) in try SweepReport(from: &buffer) }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeBool(running)
        buffer.writeOptional(lastSweep) { $1.encode(into: &$0) }
    }
}

/// `listDeletions`: `varint limit` (1–1000).
public struct ListDeletionsRequest: WireMessage, Hashable {
    public var limit: UInt64

    public init(limit: UInt64) { self.limit = limit }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        limit = try buffer.readVarint("listDeletions.limit", max: 1000)
        guard limit > 0 else { throw .invalidValue("listDeletions.limit") }
    }

    public func encode(into buffer: inout ByteBuffer) { buffer.writeVarint(limit) }
}

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
