public import FoyerWire
public import NIOCore

/// One event of identity's outbox, as an operator sees it (`getEvent`, `replayEvent`, an element of ``EventPage``).
///
/// ```
/// u64    position                  the outbox's order (paging key)
/// string id                        <= 64 bytes: `evt_` and 32 hex digits, the same in every delivery
/// string type                      <= 32 bytes: user.created, user.linked, user.merged, user.deleted, plan.changed
/// string uid                       <= 64 bytes
/// u64    sequence                  1, 2, ... per uid
/// u64    occurredAtMilliseconds
/// u8     state                     0 pending, 1 delivered, 2 failed
/// u32    attempts                  deliveries tried so far
/// u64    nextAttemptAtMilliseconds when a pending event is due
/// bool hasDeliveredAt, u64 deliveredAtMilliseconds
/// bool hasLastError, string lastError   <= 256 bytes: why the last attempt failed
/// string body                      <= 4096 bytes: the JSON delivered, byte for byte
/// ```
public struct EventInfo: WireMessage, Hashable {
    public var position: UInt64
    public var id: String
    public var type: String
    public var uid: String
    public var sequence: UInt64
    public var occurredAtMilliseconds: UInt64
    public var state: EventState
    public var attempts: UInt32
    public var nextAttemptAtMilliseconds: UInt64
    public var deliveredAtMilliseconds: UInt64?
    public var lastError: String?
    public var body: String

    public init(
        position: UInt64,
        id: String,
        type: String,
        uid: String,
        sequence: UInt64,
        occurredAtMilliseconds: UInt64,
        state: EventState,
        attempts: UInt32,
        nextAttemptAtMilliseconds: UInt64,
        deliveredAtMilliseconds: UInt64? = nil,
        lastError: String? = nil,
        body: String
    ) {
        self.position = position
        self.id = id
        self.type = type
        self.uid = uid
        self.sequence = sequence
        self.occurredAtMilliseconds = occurredAtMilliseconds
        self.state = state
        self.attempts = attempts
        self.nextAttemptAtMilliseconds = nextAttemptAtMilliseconds
        self.deliveredAtMilliseconds = deliveredAtMilliseconds
        self.lastError = lastError
        self.body = body
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        position = try buffer.readWire()
        id = try buffer.readLengthPrefixedString("event.id", maxBytes: EventLimits.idByteCountMax)
        type = try buffer.readLengthPrefixedString("event.type", maxBytes: EventLimits.typeByteCountMax)
        uid = try buffer.readLengthPrefixedString("event.uid", maxBytes: IdentityLimits.uidByteCountMax)
        sequence = try buffer.readWire()
        occurredAtMilliseconds = try buffer.readWire()
        state = try buffer.readEnum(EventState.self, "event.state")
        attempts = try buffer.readWire()
        nextAttemptAtMilliseconds = try buffer.readWire()
        deliveredAtMilliseconds = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readWire(UInt64.self)
        }
        lastError = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readLengthPrefixedString("event.lastError", maxBytes: EventLimits.errorByteCountMax)
        }
        body = try buffer.readLengthPrefixedString("event.body", maxBytes: EventLimits.bodyByteCountMax)
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeInteger(position)
        buffer.writeLengthPrefixedString(id)
        buffer.writeLengthPrefixedString(type)
        buffer.writeLengthPrefixedString(uid)
        buffer.writeInteger(sequence)
        buffer.writeInteger(occurredAtMilliseconds)
        buffer.writeInteger(state.rawValue)
        buffer.writeInteger(attempts)
        buffer.writeInteger(nextAttemptAtMilliseconds)
        buffer.writeOptional(deliveredAtMilliseconds) { $0.writeInteger($1) }
        buffer.writeOptional(lastError) { $0.writeLengthPrefixedString($1) }
        buffer.writeLengthPrefixedString(body)
    }
}
