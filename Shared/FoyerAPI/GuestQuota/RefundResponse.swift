public import FoyerWire
public import NIOCore

/// What a refund did.
///
/// ```
/// u8                      outcome   0 refunded now, 1 refunded by an earlier call, 2 no consume with that key
///                                   (the key is then spent: a late consume with it is refused op-conflict)
/// optional CounterUsage   usage     the counter after the refund, when the key named one
/// ```
public struct RefundResponse: WireMessage, Hashable {
    public enum Outcome: UInt8, Sendable, Hashable {
        case refunded = 0
        case alreadyRefunded = 1
        case notFound = 2
    }

    public var outcome: Outcome
    public var usage: CounterUsage?

    public init(outcome: Outcome, usage: CounterUsage?) {
        self.outcome = outcome
        self.usage = usage
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        guard let outcome = Outcome(rawValue: try buffer.readWire()) else { throw .invalidValue("refund.outcome") }
        self.outcome = outcome
        usage = try buffer.readBool() ? try CounterUsage(from: &buffer) : nil
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeInteger(outcome.rawValue)
        buffer.writeBool(usage != nil)
        usage?.encode(into: &buffer)
    }
}
