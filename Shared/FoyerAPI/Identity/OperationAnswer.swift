public import FoyerWire
public import NIOCore

/// `rememberOperationAnswer` request: the answer of a finished gateway operation, kept where every gateway replica
/// finds it, so that a client retrying after a lost answer gets the first answer from any replica.
///
/// Identity stores the three values as they are and never reads them: the gateway derives `id` from the
/// operation's scoped id, `check` from the request, and seals `sealed` under a key only the cluster's gateways can
/// derive (docs/PROTOCOL.md). The first answer stored under an id stays; a later one is ignored.
///
/// ```
/// bytes  id               32 bytes
/// bytes  check            32 bytes
/// bytes  sealed           1-65,536 bytes
/// varint lifetimeSeconds  1-86,400
/// ```
public struct RememberOperationAnswerRequest: WireMessage, Hashable {
    public var id: [UInt8]
    public var check: [UInt8]
    public var sealed: [UInt8]
    public var lifetimeSeconds: UInt64

    public init(id: [UInt8], check: [UInt8], sealed: [UInt8], lifetimeSeconds: UInt64) {
        self.id = id
        self.check = check
        self.sealed = sealed
        self.lifetimeSeconds = lifetimeSeconds
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        id = try OperationAnswerLimits.readDigest(&buffer, "rememberOperationAnswer.id")
        check = try OperationAnswerLimits.readDigest(&buffer, "rememberOperationAnswer.check")
        sealed = try buffer.readLengthPrefixedBytes(
            "rememberOperationAnswer.sealed",
            maxBytes: OperationAnswerLimits.sealedByteCountMax
        )
        guard !sealed.isEmpty else { throw WireError.invalidValue("rememberOperationAnswer.sealed") }
        lifetimeSeconds = try buffer.readVarint(
            "rememberOperationAnswer.lifetimeSeconds",
            max: OperationAnswerLimits.lifetimeSecondsMax
        )
        guard lifetimeSeconds >= 1 else {
            throw WireError.invalidValue("rememberOperationAnswer.lifetimeSeconds")
        }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedBytes(id)
        buffer.writeLengthPrefixedBytes(check)
        buffer.writeLengthPrefixedBytes(sealed)
        buffer.writeVarint(lifetimeSeconds)
    }
}

/// An answer a gateway stored with `rememberOperationAnswer`, as `link` and `deleteAccount` give it back when the
/// operation was answered before.
///
/// ```
/// bytes check    32 bytes
/// bytes sealed   1-65,536 bytes
/// ```
public struct RememberedAnswer: Hashable, Sendable {
    public var check: [UInt8]
    public var sealed: [UInt8]

    public init(check: [UInt8], sealed: [UInt8]) {
        self.check = check
        self.sealed = sealed
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        check = try OperationAnswerLimits.readDigest(&buffer, "rememberedAnswer.check")
        sealed = try buffer.readLengthPrefixedBytes(
            "rememberedAnswer.sealed",
            maxBytes: OperationAnswerLimits.sealedByteCountMax
        )
        guard !sealed.isEmpty else { throw WireError.invalidValue("rememberedAnswer.sealed") }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedBytes(check)
        buffer.writeLengthPrefixedBytes(sealed)
    }
}

/// The caps of the operation-answer messages.
public enum OperationAnswerLimits {
    /// `id` and `check` are SHA-256 digests.
    public static let digestByteCount = 32
    /// A sealed answer: the largest gateway answer remembered (a link-or-merge's tokens and report) with room.
    public static let sealedByteCountMax = 64 << 10
    /// Identity keeps an answer at most a day.
    public static let lifetimeSecondsMax: UInt64 = 86_400

    static func readDigest(_ buffer: inout ByteBuffer, _ field: String) throws(WireError) -> [UInt8] {
        let bytes = try buffer.readLengthPrefixedBytes(field, maxBytes: digestByteCount)
        guard bytes.count == digestByteCount else {
            throw WireError.invalidValue(field)
        }
        return bytes
    }
}
