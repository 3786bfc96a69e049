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
    /// 5. identity `revokeAppleTokens` revokes at Apple the Sign in with Apple token it kept for the user, if any
    ///    (`apple-unavailable` fails the run, which a retry or cleanup's recovery finishes later);
    /// 6. identity `finishDeleteWithReason` removes the user itself, writing its `user.deleted` event with `reason`
    ///    (the batch form, `finishDeleteBatch`, has identity infer the reason from the operation ids).
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

    /// Steps 2–6 of `deleteEverything`, for a user already past `beginDelete` (cleanup's recovery).
    public func finishDeletion(
        uid: String,
        operationID: String,
        reason: DeletionReason,
        options: CallOptions = CallOptions()
    ) async throws -> UInt64 {
        try await recorder.recordDeletion(uid: uid, operationID: operationID, reason: reason, options: options)
        FaultPoint.deleteAfterRecord.reached()
        let documents = try await userData.call(
            UserDataMethods.deleteAll,
            DeleteAllDocumentsRequest(uid: uid),
            options: options
        )
        FaultPoint.deleteAfterUserData.reached()
        _ = try await guestQuota.call(GuestQuotaMethods.deleteAll, QuotaDeleteAllRequest(uid: uid), options: options)
        FaultPoint.deleteAfterGuestQuota.reached()
        let apple = try await revokeAppleTokens([uid], options: options)
        _ = try await identity.call(
            IdentityMethods.finishDeleteWithReason,
            FinishDeleteRequest(uid: uid, operationID: operationID, reason: reason),
            options: options
        )
        FaultPoint.deleteAfterFinishDelete.reached()
        logger.info(
            "account deleted",
            metadata: [
                "user.uid": "\(uid)", "operation.id": "\(operationID)", "deletion.reason": "\(reason)",
                "apple.token": "\(apple[0])",
            ]
        )
        return documents.deleted
    }

    /// `deleteEverything` for up to `BatchLimits.countMax` users at once, each step one batch call for all of them (the
    /// inactivity clean-up deletes thousands of guests per sweep, and one commit per step instead of one per user
    /// is what makes that fast).
    ///
    /// Identity's `beginDeleteBatch` answers each user on its own: a refused user (`guest-still-active`,
    /// `user-not-found`, …) is left alone and answered with the refusal; the others go through steps 2–5 together.
    /// A failure after step 1 fails the call and leaves those users `deleting`, which running the batch again (or
    /// cleanup's recovery, one by one) finishes, exactly as after a failure of `deleteEverything`.
    ///
    /// - Returns: per user, in order, the documents deleted by this run or identity's refusal.
    public func deleteEverything(
        _ users: [UserOperation],
        reason: DeletionReason,
        idleBeforeMilliseconds: UInt64? = nil,
        options: CallOptions = CallOptions()
    ) async throws -> [Result<UInt64, RPCError>] {
        guard (1...BatchLimits.countMax).contains(users.count) else {
            throw RPCError.invalidArgument(
                "a batch deletion holds 1-\(BatchLimits.countMax) users, not \(users.count)"
            )
        }
        let begun = try await Self.callBatch(
            identity,
            IdentityMethods.beginDeleteBatch,
            users.map {
                BeginDeleteRequest(
                    uid: $0.uid,
                    operationID: $0.operationID,
                    idleBeforeMilliseconds: idleBeforeMilliseconds
                )
            },
            service: "identity",
            options: options
        )
        let results = Self.refusals(begun)
        let marked = users.indices.filter { results[$0] == nil }.map { users[$0] }
        FaultPoint.deleteAfterBeginDelete.reached()
        guard !marked.isEmpty else { return results.map { .failure($0!) } }

        try await recorder.recordDeletions(marked, reason: reason, options: options)
        FaultPoint.deleteAfterRecord.reached()
        let uids = marked.map(\.uid)
        let documents = try await Self.callBatch(
            userData,
            UserDataMethods.deleteAllBatch,
            uids.map(DeleteAllDocumentsRequest.init(uid:)),
            service: "user-data",
            options: options
        )
        FaultPoint.deleteAfterUserData.reached()
        _ = try await Self.callBatch(
            guestQuota,
            GuestQuotaMethods.deleteAllBatch,
            uids.map(QuotaDeleteAllRequest.init(uid:)),
            service: "guest-quota",
            options: options
        )
        FaultPoint.deleteAfterGuestQuota.reached()
        let apple = try await revokeAppleTokens(uids, options: options)
        let finished = try await Self.callBatch(
            identity,
            IdentityMethods.finishDeleteBatch,
            marked.map { IdentityOperationRequest(uid: $0.uid, operationID: $0.operationID) },
            service: "identity",
            options: options
        )
        let finishRefusals = Self.refusals(finished)
        FaultPoint.deleteAfterFinishDelete.reached()

        var deleted = [String: Result<UInt64, RPCError>](minimumCapacity: marked.count)
        for (index, user) in marked.enumerated() {
            deleted[user.uid] = finishRefusals[index].map { .failure($0) } ?? .success(documents[index].deleted)
        }
        logger.info(
            "accounts deleted",
            metadata: [
                "batch.size": "\(users.count)", "batch.deleted": "\(finishRefusals.count { $0 == nil })",
                "deletion.reason": "\(reason)", "apple.tokens_revoked": "\(apple.count { $0 == .revoked })",
            ]
        )
        return users.indices.map { index in
            if let refusal = results[index] { return .failure(refusal) }
            return deleted[users[index].uid]
                ?? .failure(RPCError(.internal, "lost track of a user in a batch deletion"))
        }
    }

    /// Identity's `revokeAppleTokens` for `uids`: what became of each one's Sign in with Apple token (`revoked`, or
    /// `none` / `notObtained` when there was none to revoke).
    private func revokeAppleTokens(
        _ uids: [String],
        options: CallOptions
    ) async throws -> [AppleTokenRevocation.Outcome] {
        try await Self.callBatch(
            identity,
            IdentityMethods.revokeAppleTokens,
            uids.map(IdentityUserRequest.init(uid:)),
            service: "identity",
            options: options
        ).map(\.outcome)
    }

    /// Calls a batch method of `service` with `elements` and checks that the answer has one element per request
    /// element (anything else is `internal`: the caller would lose track of who was done).
    private static func callBatch<Element, Outcome>(
        _ client: RPCClient,
        _ method: RPCMethod<Batch<Element>, Batch<Outcome>>,
        _ elements: [Element],
        service: String,
        options: CallOptions
    ) async throws -> [Outcome] {
        let answer = try await client.call(method, Batch(elements), options: options).elements
        guard answer.count == elements.count else {
            throw RPCError(.internal, "\(service) answered \(answer.count) outcomes to a batch of \(elements.count)")
        }
        return answer
    }

    /// Each element's refusal (nil when done).
    private static func refusals(_ outcomes: [BatchOutcome]) -> [RPCError?] {
        outcomes.map { outcome in outcome.status.map { RPCError($0, outcome.message) } }
    }

    /// Merges guest `guest` into account `account`.
    ///
    /// 1. identity `beginMerge`: the guest goes to `merging(into: account)` and its sessions are revoked;
    /// 2. user-data moves the guest's documents under `policy`; 3. guest-quota adds the guest's usage to the
    ///    account's; 4. the deletion is recorded (reason `merge`); 5. identity `finishMergeWithReport` deletes the
    ///    guest, writing its `user.merged` event with the report's totals. No Apple step: identity keeps an Apple
    ///    token only for a permanent account (a guest that signs in with Apple becomes one), so a guest never has one.
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
        return try await finishMerge(
            guest: guest,
            into: account,
            operationID: operationID,
            policy: policy,
            options: options
        )
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
            IdentityMethods.finishMergeWithReport,
            FinishMergeRequest(uid: guest, operationID: operationID, report: report),
            options: options
        )
        FaultPoint.mergeAfterFinishMerge.reached()
        logger.info(
            "guest merged",
            metadata: [
                "user.uid": "\(guest)", "merge.into": "\(account)", "operation.id": "\(operationID)",
                "merge.moved": "\(report.moved)",
            ]
        )
        return report
    }
}

/// A user and the id of the operation that works on it: one element of a batch operation.
public struct UserOperation: Sendable, Hashable {
    public var uid: String
    public var operationID: String

    public init(uid: String, operationID: String) {
        self.uid = uid
        self.operationID = operationID
    }
}

/// Where deletions are recorded: cleanup's own store inside cleanup, an RPC call to cleanup elsewhere.
public protocol DeletionRecorder: Sendable {
    /// Records that `uid` was (or is being) deleted; idempotent under `operationID`.
    func recordDeletion(uid: String, operationID: String, reason: DeletionReason, options: CallOptions) async throws

    /// Records several deletions; the default records them one by one.
    func recordDeletions(_ users: [UserOperation], reason: DeletionReason, options: CallOptions) async throws
}

extension DeletionRecorder {
    public func recordDeletions(_ users: [UserOperation], reason: DeletionReason, options: CallOptions) async throws {
        for user in users {
            try await recordDeletion(uid: user.uid, operationID: user.operationID, reason: reason, options: options)
        }
    }
}

/// Records deletions by calling the cleanup service.
public struct RemoteDeletionRecorder: DeletionRecorder {
    public let cleanup: RPCClient

    public init(cleanup: RPCClient) { self.cleanup = cleanup }

    public func recordDeletion(
        uid: String,
        operationID: String,
        reason: DeletionReason,
        options: CallOptions
    ) async throws {
        _ = try await cleanup.call(
            CleanupMethods.recordDeletion,
            RecordDeletionRequest(operationID: operationID, uid: uid, reason: reason),
            options: options
        )
    }
}
