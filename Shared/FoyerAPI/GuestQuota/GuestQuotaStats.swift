public import FoyerWire
public import NIOCore

/// The live-guest count and its cap, and the requests refused in the last hour across every replica sharing the
/// database.
///
/// ```
/// varint            liveGuests        accounts open on the guest plan
/// varint            liveGuestsMax     the configured cap
/// varint            denialsLastHour   refused consumes and sign-up admissions whose minute started in the last
///                                     60 minutes (every kind, flushed by any replica, plus the answering
///                                     replica's unflushed ones)
/// list DenialCount  denialsByKind     <= 50, the same window per kind, largest first (ties by kind)
/// ```
public struct GuestQuotaStats: WireMessage, Hashable {
    public var liveGuests: UInt64
    public var liveGuestsMax: UInt64
    public var denialsLastHour: UInt64
    public var denialsByKind: [DenialCount]

    public init(
        liveGuests: UInt64,
        liveGuestsMax: UInt64,
        denialsLastHour: UInt64 = 0,
        denialsByKind: [DenialCount] = []
    ) {
        self.liveGuests = liveGuests
        self.liveGuestsMax = liveGuestsMax
        self.denialsLastHour = denialsLastHour
        self.denialsByKind = denialsByKind
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        liveGuests = try buffer.readVarint()
        liveGuestsMax = try buffer.readVarint()
        denialsLastHour = try buffer.readVarint()
        let count = try buffer.readCount(
            "stats.denialsByKind",
            maxCount: GuestQuotaLimits.denialKindsMax,
            minElementBytes: 2  // an empty kind and a one-byte varint
        )
        denialsByKind = []
        denialsByKind.reserveCapacity(count)
        for _ in 0..<count { denialsByKind.append(try DenialCount(from: &buffer)) }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeVarint(liveGuests)
        buffer.writeVarint(liveGuestsMax)
        buffer.writeVarint(denialsLastHour)
        buffer.writeVarint(UInt64(denialsByKind.count))
        for denial in denialsByKind { denial.encode(into: &buffer) }
    }
}
