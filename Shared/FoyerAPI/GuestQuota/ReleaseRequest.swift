public import FoyerWire
public import NIOCore

/// Gives back `amount` of a counter of `uid` once per idempotency key: what a deleted document had taken.
///
/// ```
/// string  uid              <= 64 bytes
/// string  counter          <= 64 bytes
/// i64     amount           1 ... 2^40
/// string  idempotencyKey   1-128 bytes of printable ASCII, unique per uid and release (and never a consume's key)
/// ```
/// The answer is a `RefundResponse`: `refunded` when released now, `alreadyRefunded` for a repeated key.
public struct ReleaseRequest: WireMessage, Hashable {
    public var uid: String
    public var counter: String
    public var amount: Int64
    public var idempotencyKey: String

    public init(uid: String, counter: String, amount: UInt64, idempotencyKey: String) {
        self.uid = uid
        self.counter = counter
        self.amount = Int64(clamping: amount)
        self.idempotencyKey = idempotencyKey
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("release.uid", maxBytes: GuestQuotaLimits.uidByteCountMax)
        counter = try buffer.readLengthPrefixedString("release.counter", maxBytes: GuestQuotaLimits.nameByteCountMax)
        amount = try buffer.readWire()
        idempotencyKey = try buffer.readLengthPrefixedString(
            "release.idempotencyKey",
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
