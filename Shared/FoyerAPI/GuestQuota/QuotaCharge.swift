public import FoyerWire
public import NIOCore

/// One counter of a `consume`: what to add to it, under its own idempotency key.
///
/// ```
/// string  counter          <= 64 bytes
/// i64     amount           1 ... 2^40; signed on the wire so that a negative amount is refused, not wrapped
/// string  idempotencyKey   1-128 bytes of printable ASCII, unique per uid and consume
/// ```
public struct QuotaCharge: WireMessage, Hashable {
    public var counter: String
    public var amount: Int64
    public var idempotencyKey: String

    public init(counter: String, amount: Int64, idempotencyKey: String) {
        self.counter = counter
        self.amount = amount
        self.idempotencyKey = idempotencyKey
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        counter = try buffer.readLengthPrefixedString("consume.counter", maxBytes: GuestQuotaLimits.nameByteCountMax)
        amount = try buffer.readWire(Int64.self)
        idempotencyKey = try buffer.readLengthPrefixedString(
            "consume.idempotencyKey",
            maxBytes: GuestQuotaLimits.operationKeyByteCountMax
        )
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(counter)
        buffer.writeInteger(amount)
        buffer.writeLengthPrefixedString(idempotencyKey)
    }
}
