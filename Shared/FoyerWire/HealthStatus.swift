public import NIOCore

/// The answer to the built-in `health` method.
///
/// ```
/// string service        the hosted service's name (<= 64 bytes)
/// u8     state          0 serving, 1 draining
/// u64    uptimeMs
/// ```
public struct HealthStatus: WireMessage, Hashable {
    public enum State: UInt8, Sendable {
        case serving = 0
        case draining = 1
    }

    public var service: String
    public var state: State
    public var uptimeMilliseconds: UInt64

    public init(service: String, state: State, uptimeMilliseconds: UInt64) {
        self.service = service
        self.state = state
        self.uptimeMilliseconds = uptimeMilliseconds
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        service = try buffer.readLengthPrefixedString("health.service", maxBytes: Hello.nameByteCountMax)
        guard let state = State(rawValue: try buffer.readWire()) else { throw .invalidValue("health.state") }
        self.state = state
        uptimeMilliseconds = try buffer.readWire()
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(service)
        buffer.writeInteger(state.rawValue)
        buffer.writeInteger(uptimeMilliseconds)
    }
}
