public import FoyerWire
public import NIOCore

/// `finishMerge` request: the guest and its merge's operation, the totals of user-data's merge report, which
/// identity puts into the `user.merged` event, and the gateway's answer to keep, written in the same transaction.
///
/// ```
/// string uid           <= 64 bytes: the guest
/// string operationID   1–128 bytes: the id the merge began with
/// varint moved, conflicts, keptAccount, keptGuest, keptBoth   the report's totals (`MergeReport`)
/// bool   hasAnswer, RememberOperationAnswerRequest answer      the answer a retry gets (absent from cleanup)
/// ```
public struct FinishMergeRequest: WireMessage, Hashable {
    public var uid: String
    public var operationID: String
    public var moved: UInt64
    public var conflicts: UInt64
    public var keptAccount: UInt64
    public var keptGuest: UInt64
    public var keptBoth: UInt64
    public var answer: RememberOperationAnswerRequest?

    public init(uid: String, operationID: String, report: MergeReport, answer: RememberOperationAnswerRequest? = nil) {
        self.uid = uid
        self.operationID = operationID
        moved = report.moved
        conflicts = report.conflicts
        keptAccount = report.keptAccount
        keptGuest = report.keptGuest
        keptBoth = report.keptBoth
        self.answer = answer
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        let operation = try IdentityOperationRequest(from: &buffer)
        uid = operation.uid
        operationID = operation.operationID
        moved = try buffer.readVarint()
        conflicts = try buffer.readVarint()
        keptAccount = try buffer.readVarint()
        keptGuest = try buffer.readVarint()
        keptBoth = try buffer.readVarint()
        answer = try buffer.readOptional { (buffer) throws(WireError) in
            try RememberOperationAnswerRequest(from: &buffer)
        }
    }

    public func encode(into buffer: inout ByteBuffer) {
        IdentityOperationRequest(uid: uid, operationID: operationID).encode(into: &buffer)
        for total in [moved, conflicts, keptAccount, keptGuest, keptBoth] { buffer.writeVarint(total) }
        buffer.writeOptional(answer) { $1.encode(into: &$0) }
    }

    /// The uid and operation.
    public var operation: IdentityOperationRequest { IdentityOperationRequest(uid: uid, operationID: operationID) }
}
