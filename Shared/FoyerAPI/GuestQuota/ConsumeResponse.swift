public import FoyerWire
public import NIOCore

/// The consume was allowed and counted. (A denial is the error `quota-exceeded` with `QuotaExceededDetails`.)
///
/// ```
/// list CounterUsage  usage      one per charge counted, in the request's order: the counter after the consume
///                               (a scoped counter such as `documents:notes` that the plan does not name is skipped)
/// bool               replayed   true when the keys had been counted before: this answer counted nothing
/// bool               opened     true when this consume opened the account (a guest's first), on the guest plan
/// ```
public struct ConsumeResponse: WireMessage, Hashable {
    public var usage: [CounterUsage]
    public var replayed: Bool
    public var opened: Bool

    public init(usage: [CounterUsage], replayed: Bool, opened: Bool) {
        self.usage = usage
        self.replayed = replayed
        self.opened = opened
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        let count = try buffer.readCount(
            "consume.usage",
            maxCount: GuestQuotaLimits.chargesMax,
            minElementBytes: 4  // an empty name and three one-byte varints
        )
        usage = []
        usage.reserveCapacity(count)
        for _ in 0..<count { usage.append(try CounterUsage(from: &buffer)) }
        replayed = try buffer.readBool()
        opened = try buffer.readBool()
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeVarint(UInt64(usage.count))
        for counter in usage { counter.encode(into: &buffer) }
        buffer.writeBool(replayed)
        buffer.writeBool(opened)
    }
}
