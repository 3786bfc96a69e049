public import FoyerWire
public import NIOCore

/// `finishDeleteWithReason` request: `finishDelete` with why the user is deleted, which identity puts into the
/// `user.deleted` event it writes in the same transaction.
///
/// ```
/// string uid           <= 64 bytes
/// string operationID   1–128 bytes: the id the deletion began with
/// u8     reason        0 user-request (delete-everything, a guest's sign-out, an operator), 1 ttl, 2 merge (a guest
///                      discarded in favour of an account)
/// ```
public struct FinishDeleteRequest: WireMessage, Hashable {
    public var uid: String
    public var operationID: String
    public var reason: DeletionReason

    public init(uid: String, operationID: String, reason: DeletionReason) {
        self.uid = uid
        self.operationID = operationID
        self.reason = reason
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        let operation = try IdentityOperationRequest(from: &buffer)
        uid = operation.uid
        operationID = operation.operationID
        reason = try buffer.readEnum(DeletionReason.self, "finishDelete.reason")
    }

    public func encode(into buffer: inout ByteBuffer) {
        IdentityOperationRequest(uid: uid, operationID: operationID).encode(into: &buffer)
        buffer.writeInteger(reason.rawValue)
    }

    /// The uid and operation, as `finishDelete` takes them.
    public var operation: IdentityOperationRequest { IdentityOperationRequest(uid: uid, operationID: operationID) }
}
