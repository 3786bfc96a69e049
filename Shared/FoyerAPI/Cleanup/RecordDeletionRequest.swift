public import FoyerWire
public import NIOCore

/// `recordDeletion`:
/// ```
/// string operationID   1–128 bytes: the delete-everything operation; recording it again changes nothing
/// string uid           <= 64 bytes: kept only as a keyed hash (a pseudonymous id), never as is
/// u8     reason        DeletionReason
/// ```
public struct RecordDeletionRequest: WireMessage, Hashable {
    public var operationID: String
    public var uid: String
    public var reason: DeletionReason

    public init(operationID: String, uid: String, reason: DeletionReason) {
        self.operationID = operationID
        self.uid = uid
        self.reason = reason
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        operationID = try buffer.readLengthPrefixedString("recordDeletion.operationID", maxBytes: 128)
        guard !operationID.isEmpty else { throw .invalidValue("recordDeletion.operationID") }
        uid = try buffer.readLengthPrefixedString("recordDeletion.uid", maxBytes: 64)
        reason = try buffer.readEnum(DeletionReason.self, "recordDeletion.reason")
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(operationID)
        buffer.writeLengthPrefixedString(uid)
        buffer.writeInteger(reason.rawValue)
    }
}
