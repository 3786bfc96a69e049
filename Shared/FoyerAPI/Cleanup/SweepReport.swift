public import FoyerWire
public import NIOCore

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
