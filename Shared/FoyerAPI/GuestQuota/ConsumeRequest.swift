public import FoyerWire
public import NIOCore

/// Adds `amount` to a counter of `uid` if that keeps it within its limit, once per idempotency key.
///
/// ```
/// string  uid              <= 64 bytes
/// string  counter          <= 64 bytes
/// i64     amount           1 ... 2^40; signed on the wire so that a negative amount is refused, not wrapped
/// string  idempotencyKey   1-128 bytes of printable ASCII, unique per uid and consume
/// ```
public struct ConsumeRequest: WireMessage, Hashable {
    public var uid: String
    public var counter: String
    public var amount: Int64
    public var idempotencyKey: String

    public init(uid: String, counter: String, amount: Int64, idempotencyKey: String) {
        self.uid = uid
        self.counter = counter
        self.amount = amount
        self.idempotencyKey = idempotencyKey
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("consume.uid", maxBytes: GuestQuotaLimits.uidByteCountMax)
        counter = try buffer.readLengthPrefixedString("consume.counter", maxBytes: GuestQuotaLimits.nameByteCountMax)
        amount = try buffer.readWire(Int64.self)
        idempotencyKey = try buffer.readLengthPrefixedString(
            "consume.idempotencyKey",
            maxBytes: GuestQuotaLimits.operationKeyByteCountMax
        )
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(uid)
        buffer.writeLengthPrefixedString(counter)
        buffer.writeInteger(amount)
        buffer.writeLengthPrefixedString(idempotencyKey)
    }
}
