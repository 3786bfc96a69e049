public import FoyerWire
public import NIOCore

/// A request that finishes an operation on a user: `finishMerge`, `finishDelete`.
///
/// ```
/// string uid           <= 64 bytes
/// string operationID   1–128 bytes: the id the operation began with
/// ```
public struct IdentityOperationRequest: WireMessage, Hashable {
    public var uid: String
    public var operationID: String

    public init(uid: String, operationID: String) {
        self.uid = uid
        self.operationID = operationID
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        uid = try buffer.readLengthPrefixedString("operation.uid", maxBytes: IdentityLimits.uidByteCountMax)
        operationID = try buffer.readLengthPrefixedString(
            "operation.operationID",
            maxBytes: IdentityLimits.operationIDByteCountMax
        )
        guard !operationID.isEmpty else { throw .invalidValue("operation.operationID") }
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(uid)
        buffer.writeLengthPrefixedString(operationID)
    }
}
