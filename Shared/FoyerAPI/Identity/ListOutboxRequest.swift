public import FoyerWire
public import NIOCore

/// `listOutbox` request.
///
/// ```
/// bool   hasRecipient, string recipient   <= 320 bytes: only messages to this address
/// u32    limit                            1–1000
/// ```
public struct ListOutboxRequest: WireMessage, Hashable {
    public var recipient: String?
    public var limit: UInt32

    public init(recipient: String? = nil, limit: UInt32 = 20) {
        self.recipient = recipient
        self.limit = limit
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        recipient = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readLengthPrefixedString("outbox.recipient", maxBytes: IdentityLimits.emailByteCountMax)
        }
        limit = try buffer.readWire()
        guard (1...UInt32(IdentityLimits.listCountMax)).contains(limit) else { throw .invalidValue("outbox.limit") }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeOptional(recipient) { $0.writeLengthPrefixedString($1) }
        buffer.writeInteger(limit)
    }
}
