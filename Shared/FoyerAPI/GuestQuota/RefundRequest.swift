public import FoyerWire
public import NIOCore

/// Undoes the consume of `uid` made with `idempotencyKey`.
///
/// ```
/// string  uid              <= 64 bytes
/// string  idempotencyKey   1-128 bytes of printable ASCII
/// ```
public struct RefundRequest: WireMessage, Hashable {
    public var uid: String
    public var idempotencyKey: String

    public init(uid: String, idempotencyKey: String) {
        self.uid = uid
        self.idempotencyKey = idempotencyKey
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("refund.uid", maxBytes: GuestQuotaLimits.uidByteCountMax)
        idempotencyKey = try buffer.readLengthPrefixedString(
            "refund.idempotencyKey",
            maxBytes: GuestQuotaLimits.operationKeyByteCountMax
        )
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(uid)
        buffer.writeLengthPrefixedString(idempotencyKey)
    }
}
