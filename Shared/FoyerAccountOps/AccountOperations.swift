public import FoyerAPI
public import FoyerRPC
import FoyerWire
public import Logging

/// The multi-service steps of delete-everything and of a guest's merge into an account, written once for the
/// gateway (which starts them) and cleanup (which finishes the ones a crash interrupted).
///
/// Every step is idempotent under the operation id, so running the whole sequence again after a failure at any
/// step finishes the job without doing any step twice: identity's state machine says where a user stands, and
/// user-data and guest-quota record each operation they have done.
public struct AccountOperations: Sendable {
    public let identity: RPCClient
    public let guestQuota: RPCClient
    public let userData: RPCClient
    private let recorder: any DeletionRecorder
    private let logger: Logger

    public init(
        identity: RPCClient,
        guestQuota: RPCClient,
        userData: RPCClient,
        recorder: any DeletionRecorder,
        logger: Logger
    ) {
        self.identity = identity
        self.guestQuota = guestQuota
        self.userData = userData
        self.recorder = recorder
        self.logger = logger
    }

    /// Deletes `uid` and everything it owns in every service.
    ///
    /// 1. identity `beginDelete`: every session is revoked; from here on no token of the user works and the
    ///    deletion only goes forward (the point of no return);
    /// 2. the deletion is recorded (a pseudonymous id, the reason, the time);
    /// 3. user-data deletes every document; 4. guest-quota deletes the counters;
    /// 5. identity `finishDelete` removes the user itself.
    ///
    /// - Parameter idleBeforeMilliseconds: for the inactivity clean-up: identity refuses (`guest-still-active`)
    ///   unless the user is still an idle guest at step 1, so a guest that links meanwhile is never swept.
    /// - Returns: the documents deleted by this run.
    public func deleteEverything(
        uid: String,
        operationID: String,
        reason: DeletionReason,
        idleBeforeMilliseconds: UInt64? = nil,
        options: CallOptions = CallOptions()
    ) async throws -> UInt64 {
        _ = try await identity.call(
            IdentityMethods.beginDelete,
            BeginDeleteRequest(uid: uid, operationID: operationID, idleBeforeMilliseconds: idleBeforeMilliseconds),
            options: options
        )
        FaultPoint.deleteAfterBeginDelete.reached()
        return try await finishDeletion(uid: uid, operationID: operationID, reason: reason, options: options)
    }

    /// Steps 2–5 of `deleteEverything`, for a user already past `beginDelete` (cleanup's recovery).
    public func finishDeletion(
        uid: String,
        operationID: String,
        reason: DeletionReason,
        options: CallOptions = CallOptions()
    ) async throws -> UInt64 {
        try await recorder.recordDeletion(uid: uid, operationID: operationID, reason: reason, options: options)
        FaultPoint.deleteAfterRecord.reached()
        let documents = try await userData.call(UserDataMethods.deleteAll, DeleteAllDocumentsRequest(uid: uid), options: options)
        FaultPoint.deleteAfterUserData.reached()
        _ = try await guestQuota.call(GuestQuotaMethods.deleteAll, QuotaDeleteAllRequest(uid: uid), options: options)
        FaultPoint.deleteAfterGuestQuota.reached()
        _ = try await identity.call(
            IdentityMethods.finishDelete,
            IdentityOperationRequest(uid: uid, operationID: operationID),
            options: options
        )
        FaultPoint.deleteAfterFinishDelete.reached()
        logger.info("account deleted", metadata: ["user.uid": "\(uid)", "operation.id": "\(operationID)", "deletion.reason": "\(reason)"])
        return documents.deleted
    }

    /// Merges guest `guest` into account `account`.
    ///
    /// 1. identity `beginMerge`: the guest goes to `merging(into: account)` and its sessions are revoked;
    /// 2. user-data moves the guest's documents under `policy`; 3. guest-quota adds the guest's usage to the
    ///    account's; 4. the deletion is recorded (reason `merge`); 5. identity `finishMerge` deletes the guest.
    public func mergeGuest(
        guest: String,
        into account: String,
        operationID: String,
        policy: MergePolicy,
        options: CallOptions = CallOptions()
    ) async throws -> MergeReport {
        _ = try await identity.call(
            IdentityMethods.beginMerge,
            BeginMergeRequest(guestUID: guest, accountUID: account, operationID: operationID),
            options: options
        )
        FaultPoint.mergeAfterBeginMerge.reached()
        return try await finishMerge(guest: guest, into: account, operationID: operationID, policy: policy, options: options)
    }

    /// Steps 2–5 of `mergeGuest`, for a guest already in `merging` (cleanup's recovery).
    public func finishMerge(
        guest: String,
        into account: String,
        operationID: String,
        policy: MergePolicy,
        options: CallOptions = CallOptions()
    ) async throws -> MergeReport {
        let report = try await userData.call(
            UserDataMethods.merge,
            MergeDocumentsRequest(fromUID: guest, toUID: account, op: operationID, policy: policy),
            options: options
        )
        FaultPoint.mergeAfterUserData.reached()
        _ = try await guestQuota.call(
            GuestQuotaMethods.merge,
            QuotaMergeRequest(fromUID: guest, toUID: account, op: operationID),
            options: options
        )
        FaultPoint.mergeAfterGuestQuota.reached()
        // Recorded before the guest disappears, so a failure here leaves a merge that a retry or cleanup finishes,
        // never a deletion without its record.
        try await recorder.recordDeletion(uid: guest, operationID: operationID, reason: .merge, options: options)
        FaultPoint.mergeAfterRecord.reached()
        _ = try await identity.call(
            IdentityMethods.finishMerge,
            IdentityOperationRequest(uid: guest, operationID: operationID),
            options: options
        )
        FaultPoint.mergeAfterFinishMerge.reached()
        logger.info(
            "guest merged",
            metadata: ["user.uid": "\(guest)", "merge.into": "\(account)", "operation.id": "\(operationID)", "merge.moved": "\(report.moved)"]
        )
        return report
    }
}

/// Where deletions are recorded: cleanup's own store inside cleanup, an RPC call to cleanup elsewhere.
public protocol DeletionRecorder: Sendable {
    /// Records that `uid` was (or is being) deleted; idempotent under `operationID`.
    func recordDeletion(uid: String, operationID: String, reason: DeletionReason, options: CallOptions) async throws
}

/// Records deletions by calling the cleanup service.
public struct RemoteDeletionRecorder: DeletionRecorder {
    public let cleanup: RPCClient

    public init(cleanup: RPCClient) { self.cleanup = cleanup }

    public func recordDeletion(uid: String, operationID: String, reason: DeletionReason, options: CallOptions) async throws {
        _ = try await cleanup.call(
            CleanupMethods.recordDeletion,
            RecordDeletionRequest(operationID: operationID, uid: uid, reason: reason),
            options: options
        )
    }
}
