public import FoyerWire
public import NIOCore

/// `finishDelete` request: the user and its deletion's operation, and the gateway's answer to keep in the same
/// transaction. The `user.deleted` event carries the reason given at `beginDelete`.
///
/// ```
/// string uid           <= 64 bytes
/// string operationID   1–128 bytes: the id the deletion began with
/// bool   hasAnswer, RememberOperationAnswerRequest answer   the answer a retry gets (absent from cleanup)
/// ```
public struct FinishDeleteRequest: WireMessage, Hashable {
    public var uid: String
    public var operationID: String
    public var answer: RememberOperationAnswerRequest?

    public init(uid: String, operationID: String, answer: RememberOperationAnswerRequest? = nil) {
        self.uid = uid
        self.operationID = operationID
        self.answer = answer
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        let operation = try IdentityOperationRequest(from: &buffer)
        uid = operation.uid
        operationID = operation.operationID
        answer = try buffer.readOptional { (buffer) throws(WireError) in
            try RememberOperationAnswerRequest(from: &buffer)
        }
    }

    public func encode(into buffer: inout ByteBuffer) {
        operation.encode(into: &buffer)
        buffer.writeOptional(answer) { $1.encode(into: &$0) }
    }

    /// The uid and operation.
    public var operation: IdentityOperationRequest { IdentityOperationRequest(uid: uid, operationID: operationID) }
}
