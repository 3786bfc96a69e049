public import FoyerWire
public import NIOCore

/// The request of `getEvent` and `replayEvent`: one event by id.
///
/// ```
/// string id   1–64 bytes
/// ```
public struct EventRequest: WireMessage, Hashable {
    public var id: String

    public init(id: String) {
        self.id = id
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        id = try buffer.readLengthPrefixedString("event.id", maxBytes: EventLimits.idByteCountMax)
        guard !id.isEmpty else { throw .invalidValue("event.id") }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(id)
    }
}
