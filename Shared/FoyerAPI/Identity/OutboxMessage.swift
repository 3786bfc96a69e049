public import FoyerWire
public import NIOCore

/// One message held by the outbox mailer (an element of ``OutboxMessages``).
///
/// ```
/// string id                      <= 64 bytes
/// string recipient               <= 320 bytes
/// string subject                 <= 256 bytes
/// string body                    <= 8 KiB: plain text, with the link
/// u64    createdAtMilliseconds
/// ```
public struct OutboxMessage: WireMessage, Hashable {
    public var id: String
    public var recipient: String
    public var subject: String
    public var body: String
    public var createdAtMilliseconds: UInt64

    public init(id: String, recipient: String, subject: String, body: String, createdAtMilliseconds: UInt64) {
        self.id = id
        self.recipient = recipient
        self.subject = subject
        self.body = body
        self.createdAtMilliseconds = createdAtMilliseconds
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        id = try buffer.readLengthPrefixedString("outbox.id", maxBytes: 64)
        recipient = try buffer.readLengthPrefixedString("outbox.recipient", maxBytes: IdentityLimits.emailByteCountMax)
        subject = try buffer.readLengthPrefixedString(
            "outbox.subject",
            maxBytes: IdentityLimits.mailSubjectByteCountMax
        )
        body = try buffer.readLengthPrefixedString("outbox.body", maxBytes: IdentityLimits.mailBodyByteCountMax)
        createdAtMilliseconds = try buffer.readWire()
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(id)
        buffer.writeLengthPrefixedString(recipient)
        buffer.writeLengthPrefixedString(subject)
        buffer.writeLengthPrefixedString(body)
        buffer.writeInteger(createdAtMilliseconds)
    }
}
