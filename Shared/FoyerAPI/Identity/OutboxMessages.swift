public import FoyerWire
public import NIOCore

/// `listOutbox` response, newest first.
///
/// ```
/// list of OutboxMessage messages   <= 1000
/// ```
public struct OutboxMessages: WireMessage, Hashable {
    public var messages: [OutboxMessage]

    public init(messages: [OutboxMessage]) {
        self.messages = messages
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        let count = try buffer.readCount("outbox.messages", maxCount: IdentityLimits.listCountMax, minElementBytes: 12)
        var messages: [OutboxMessage] = []
        messages.reserveCapacity(count)
        for _ in 0..<count { messages.append(try OutboxMessage(from: &buffer)) }
        self.messages = messages
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeVarint(UInt64(messages.count))
        for message in messages { message.encode(into: &buffer) }
    }
}
