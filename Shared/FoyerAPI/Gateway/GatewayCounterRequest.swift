public import FoyerWire
public import NIOCore

/// `gateway.consumeCounter` and `gateway.releaseCounter`: adds `amount` to (or gives it back from) the caller's
/// counter `counter`, once per idempotency key.
///
/// ```
/// string  accessToken      <= 4096 bytes; the counter is always the token subject's
/// string  counter          <= 64 bytes: a counter of the caller's plan; the ones the gateway charges itself
///                          (`documents`, `bytes`, any name with `:`) are refused `counter-reserved`
/// varint  amount           1 ... 2^40 (`GuestQuotaLimits.consumeAmountMax`)
/// string  idempotencyKey   1–128 bytes of printable ASCII: a retry with the same key counts once and answers the
///                          counter as it stands; a consume's and a release's keys are separate
/// ```
/// The answer is the counter after the call (`CounterUsage`); a consume over the limit is `quota-exceeded` with
/// `QuotaExceededDetails`.
public struct GatewayCounterRequest: WireMessage, Hashable {
    public var accessToken: String
    public var counter: String
    public var amount: UInt64
    public var idempotencyKey: String

    public init(accessToken: String, counter: String, amount: UInt64 = 1, idempotencyKey: String) {
        self.accessToken = accessToken
        self.counter = counter
        self.amount = amount
        self.idempotencyKey = idempotencyKey
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        accessToken = try buffer.readAccessToken()
        counter = try buffer.readLengthPrefixedString("counter.name", maxBytes: GuestQuotaLimits.nameByteCountMax)
        amount = try buffer.readVarint("counter.amount", max: UInt64(GuestQuotaLimits.consumeAmountMax))
        guard amount >= 1 else { throw .invalidValue("counter.amount") }
        idempotencyKey = try buffer.readOperationID()
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(accessToken)
        buffer.writeLengthPrefixedString(counter)
        buffer.writeVarint(amount)
        buffer.writeLengthPrefixedString(idempotencyKey)
    }
}
