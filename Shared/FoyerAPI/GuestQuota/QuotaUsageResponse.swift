public import FoyerWire
public import NIOCore

/// The account's plan, every counter of that plan and every feature.
///
/// ```
/// string              plan       <= 64 bytes
/// list CounterUsage   counters   <= 256, sorted by name
/// list FeatureFlag    features   <= 256, sorted by name; every feature any plan defines, off unless this plan
///                                turns it on
/// ```
public struct QuotaUsageResponse: WireMessage, Hashable {
    public var plan: String
    public var counters: [CounterUsage]
    public var features: [FeatureFlag]

    public init(plan: String, counters: [CounterUsage], features: [FeatureFlag]) {
        self.plan = plan
        self.counters = counters
        self.features = features
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        plan = try buffer.readLengthPrefixedString("usage.plan", maxBytes: GuestQuotaLimits.nameByteCountMax)
        let counterCount = try buffer.readCount(
            "usage.counters",
            maxCount: GuestQuotaLimits.entriesMax,
            minElementBytes: 4  // an empty name and three one-byte varints
        )
        counters = []
        counters.reserveCapacity(counterCount)
        for _ in 0..<counterCount { counters.append(try CounterUsage(from: &buffer)) }
        let featureCount = try buffer.readCount(
            "usage.features",
            maxCount: GuestQuotaLimits.entriesMax,
            minElementBytes: 2  // an empty name and a bool
        )
        features = []
        features.reserveCapacity(featureCount)
        for _ in 0..<featureCount { features.append(try FeatureFlag(from: &buffer)) }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(plan)
        buffer.writeVarint(UInt64(counters.count))
        for counter in counters { counter.encode(into: &buffer) }
        buffer.writeVarint(UInt64(features.count))
        for feature in features { feature.encode(into: &buffer) }
    }
}
