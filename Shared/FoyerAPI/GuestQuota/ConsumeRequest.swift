public import FoyerWire
public import NIOCore

/// Adds an amount to each of several counters of `uid` if that keeps every one within its limit, all or none, once
/// per idempotency key.
///
/// ```
/// string            uid       <= 64 bytes
/// list QuotaCharge  charges   1–8, each counter at most once
/// ```
public struct ConsumeRequest: WireMessage, Hashable {
    public var uid: String
    public var charges: [QuotaCharge]

    public init(uid: String, charges: [QuotaCharge]) {
        self.uid = uid
        self.charges = charges
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("consume.uid", maxBytes: GuestQuotaLimits.uidByteCountMax)
        let count = try buffer.readCount(
            "consume.charges",
            maxCount: GuestQuotaLimits.chargesMax,
            minElementBytes: 10  // an empty name, the i64 and an empty key
        )
        guard count >= 1 else { throw .invalidValue("consume.charges") }
        charges = []
        charges.reserveCapacity(count)
        for _ in 0..<count { charges.append(try QuotaCharge(from: &buffer)) }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(uid)
        buffer.writeVarint(UInt64(charges.count))
        for charge in charges { charge.encode(into: &buffer) }
    }
}
