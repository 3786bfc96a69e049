public import FoyerWire
public import NIOCore

/// The consume was allowed and counted. (A denial is the error `quota-exceeded` with `QuotaExceededDetails`.)
///
/// ```
/// CounterUsage  usage      the counter after the consume
/// bool          replayed   true when the key had been counted before: this answer counted nothing
/// ```
public struct ConsumeResponse: WireMessage, Hashable {
    public var usage: CounterUsage
    public var replayed: Bool

    public init(usage: CounterUsage, replayed: Bool) {
        self.usage = usage
        self.replayed = replayed
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        usage = try CounterUsage(from: &buffer)
        replayed = try buffer.readBool()
    }

    public func encode(into buffer: inout ByteBuffer) {
        usage.encode(into: &buffer)
        buffer.writeBool(replayed)
    }
}
