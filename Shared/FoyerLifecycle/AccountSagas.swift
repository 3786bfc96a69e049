public import FoyerAPI
public import FoyerRPC
import FoyerWire
public import Logging

/// The steps of a merge or a deletion after identity began it, as data: the rounds that run one after another,
/// and in each round the steps that do not depend on each other, run side by side.
///
/// Retry: every step is idempotent under the operation id (user-data and guest-quota record each operation they
/// did and answer a repeat with the first result; cleanup records a deletion once; identity's finish of a finished
/// operation succeeds), so a saga interrupted anywhere is finished by running its rounds again from the start.
/// Undo: none. The first step (identity's `link` or `deleteAccount` or `beginDelete`) signed the account out
/// everywhere; from there a saga only goes forward (docs/DECISIONS.md, "The account lifecycle").
public struct Saga: Sendable, Hashable {
    public enum Step: String, Sendable, Hashable, CaseIterable {
        /// user-data moves the guest's documents into the account under the merge's policy.
        case moveDocuments
        /// guest-quota adds the guest's usage to the account's.
        case moveCounters
        /// user-data deletes every document.
        case deleteDocuments
        /// guest-quota deletes the counters.
        case deleteCounters
        /// cleanup records the deletion (a pseudonymous id, the reason, the time): before the user goes, so no
        /// user is ever gone without its record.
        case recordDeletion
        /// The app's merge or delete hook, when the deployment has one (``AppHooks``): the app moves or deletes its
        /// own rows. Until it answers 2xx the saga does not finish.
        case callApp
        /// identity removes the user (revoking its Apple token first, if it kept one) and writes its event.
        case finish
    }

    public let rounds: [[Step]]

    /// A guest's merge into an account.
    public static let merge = Saga(rounds: [[.moveDocuments, .moveCounters, .recordDeletion, .callApp], [.finish]])
    /// A deletion of everything a user owns.
    public static let deletion = Saga(rounds: [
        [.recordDeletion, .deleteDocuments, .deleteCounters, .callApp], [.finish],
    ])

    /// The rounds when the app has a hook for this saga: the deletion is recorded in a round of its own after the
    /// app has answered, so no record says a user is gone while the app still holds its rows.
    public var roundsWaitingOnApp: [[Step]] {
        var waiting = rounds.map { $0.filter { $0 != .recordDeletion } }
        waiting.insert([.recordDeletion], at: waiting.count - 1)
        return waiting
    }

    /// The saga of an account in `kind` (nil for an active account).
    public static func of(_ kind: AccountStateKind) -> Saga? {
        switch kind {
        case .merging: .merge
        case .deleting: .deletion
        case .active: nil
        }
    }
}

/// What a merge or a deletion did.
public enum SagaResult: Sendable, Hashable {
    case merged(MergeReport)
    case deleted(documents: UInt64)
}

/// Runs the sagas against the services: the gateway, which begins them for a client and continues them on a
/// retry, and cleanup, which recovers the ones a crash interrupted, call the same ``resume(_:answer:options:)``.
public struct AccountSagas: Sendable {
    public let identity: RPCClient
    public let guestQuota: RPCClient
    public let userData: RPCClient
    fileprivate let recorder: any DeletionRecorder
    /// The app's hooks, if the deployment has them.
    public let hooks: AppHooks?
    private let logger: Logger

    public init(
        identity: RPCClient,
        guestQuota: RPCClient,
        userData: RPCClient,
        recorder: any DeletionRecorder,
        hooks: AppHooks? = nil,
        logger: Logger
    ) {
        self.identity = identity
        self.guestQuota = guestQuota
        self.userData = userData
        self.recorder = recorder
        self.hooks = hooks
        self.logger = logger
    }

    /// The gateway's answer to keep with the last step, made from what the saga did.
    public typealias Answering = @Sendable (SagaResult) throws -> RememberOperationAnswerRequest?

    /// Runs what is left of the merge or deletion `state` describes, the one way a begun saga goes on: right after it
    /// began, on a client's retry, and in cleanup's recovery. `answer` is kept by identity with the last step, so a
    /// retry that comes after it gets the first answer.
    ///
    /// A merge whose target has gone meanwhile can never finish (its documents would be orphaned): the guest is
    /// deleted instead, under the merge's operation and reason; `target-unavailable` when the target is itself
    /// merging or deleting (the merge waits).
    public func resume(
        _ state: AccountState,
        answer: Answering? = nil,
        options: CallOptions = CallOptions()
    ) async throws -> SagaResult {
        guard let operation = state.operationID, let saga = Saga.of(state.kind) else {
            throw RPCError(.internal, "the account is not merging or deleting under an operation")
        }
        if saga == .merge, let target = state.mergeInto, !(try await targetIsLive(target, options: options)) {
            let result = try await deleteEverything(
                uid: state.uid,
                operationID: operation,
                reason: .merge,
                options: options
            )
            logger.info(
                "guest of a merge into a deleted account deleted",
                metadata: ["user.uid": "\(state.uid)", "operation.id": "\(operation)"]
            )
            return result
        }
        return try await run(saga, state, answer: answer, options: options)
    }

    /// Runs `saga` for an account identity has just put in `state` (the saga's first step).
    public func run(
        _ saga: Saga,
        _ state: AccountState,
        answer: Answering? = nil,
        options: CallOptions = CallOptions()
    ) async throws -> SagaResult {
        guard let operation = state.operationID else {
            throw RPCError(.internal, "the account is not merging or deleting under an operation")
        }
        let steps = StepRunner(sagas: self, state: state, operation: operation, options: options)
        var report: MergeReport?
        var documents: UInt64 = 0
        let rounds = hooks?.calls(saga) == true ? saga.roundsWaitingOnApp : saga.rounds
        for round in rounds {
            if round == [.finish] {
                let result: SagaResult = report.map { .merged($0) } ?? .deleted(documents: documents)
                try await steps.finish(result, answer: try answer?(result))
                logger.info(
                    saga == .merge ? "guest merged" : "account deleted",
                    metadata: ["user.uid": "\(state.uid)", "operation.id": "\(operation)"]
                )
                return result
            }
            // Every step of the round runs to its end even when one fails (the app's hook, say), so that a retry
            // finds as much done as possible; the first failure is thrown after.
            try await withThrowingTaskGroup(of: StepOutcome.self) { group in
                for step in round { group.addTask { try await steps.run(step) } }
                var failure: (any Error)?
                while let next = await group.nextResult() {
                    switch next {
                    case .success(.report(let merged)): report = merged
                    case .success(.documents(let deleted)): documents = deleted
                    case .success(.done): break
                    case .failure(let error): failure = failure ?? error
                    }
                }
                if let failure { throw failure }
            }
        }
        throw RPCError(.internal, "a saga without a finish step")
    }

    /// Deletes `uid` and everything it owns: identity's `beginDelete`, then the deletion saga (an operator's
    /// deletion, a guest whose sign-in failed half-way, a merge into an account that has gone).
    public func deleteEverything(
        uid: String,
        operationID: String,
        reason: DeletionReason,
        options: CallOptions = CallOptions()
    ) async throws -> SagaResult {
        let state = try await identity.call(
            IdentityMethods.beginDelete,
            BeginDeleteRequest(uid: uid, operationID: operationID, reason: reason),
            options: options
        )
        FaultPoint.deleteAfterBeginDelete.reached()
        return try await run(.deletion, state, options: options)
    }

    /// `deleteEverything` for up to `BatchLimits.countMax` users at once, each round one batch call per service (the
    /// inactivity clean-up deletes thousands of guests per sweep, and one commit per step instead of one per user
    /// is what makes that fast).
    ///
    /// Identity's `beginDeleteBatch` answers each user on its own: a refused user (`guest-still-active`,
    /// `user-not-found`, …) is left alone and answered with the refusal; the others go through the saga together.
    /// A failure after the first step fails the call and leaves those users `deleting`, which running the batch
    /// again (or cleanup's recovery, one by one) finishes.
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
                    reason: reason,
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

        // The deletion saga's middle round, each step one batch call, side by side.
        let uids = marked.map(\.uid)
        let waitsOnApp = hooks?.calls(.deletion) == true
        async let recorded: Void = {
            // With a delete hook, the deletions are recorded after the app has answered (below).
            guard !waitsOnApp else { return }
            try await recorder.recordDeletions(marked, reason: reason, options: options)
            FaultPoint.deleteAfterRecord.reached()
        }()
        async let deletedDocuments = {
            let deleted = try await Self.callBatch(
                userData,
                UserDataMethods.deleteAllBatch,
                uids.map(DeleteAllDocumentsRequest.init(uid:)),
                service: "user-data",
                options: options
            )
            FaultPoint.deleteAfterUserData.reached()
            return deleted
        }()
        async let deletedCounters: Void = {
            _ = try await Self.callBatch(
                guestQuota,
                GuestQuotaMethods.deleteAllBatch,
                uids.map(QuotaDeleteAllRequest.init(uid:)),
                service: "guest-quota",
                options: options
            )
            FaultPoint.deleteAfterGuestQuota.reached()
        }()
        async let waiting = callDeleteHooks(marked, reason: reason, options: options)
        try await recorded
        let documents = try await deletedDocuments
        try await deletedCounters
        // A user whose app hook failed stays `deleting` (cleanup's recovery finishes it once the app answers).
        let refusedByApp = await waiting
        let finishing = marked.indices.filter { refusedByApp[marked[$0].uid] == nil }
        if waitsOnApp, !finishing.isEmpty {
            try await recorder.recordDeletions(finishing.map { marked[$0] }, reason: reason, options: options)
            FaultPoint.deleteAfterRecord.reached()
        }
        var deleted = [String: Result<UInt64, RPCError>](minimumCapacity: marked.count)
        for (uid, refusal) in refusedByApp { deleted[uid] = .failure(refusal) }
        if !finishing.isEmpty {
            let finished = try await Self.callBatch(
                identity,
                IdentityMethods.finishDeleteBatch,
                finishing.map { IdentityOperationRequest(uid: marked[$0].uid, operationID: marked[$0].operationID) },
                service: "identity",
                options: options
            )
            let finishRefusals = Self.refusals(finished)
            FaultPoint.deleteAfterFinishDelete.reached()
            for (position, index) in finishing.enumerated() {
                deleted[marked[index].uid] =
                    finishRefusals[position].map { .failure($0) } ?? .success(documents[index].deleted)
            }
        }
        logger.info(
            "accounts deleted",
            metadata: [
                "batch.size": "\(users.count)",
                "batch.deleted": "\(deleted.values.count { if case .success = $0 { true } else { false } })",
                "deletion.reason": "\(reason)",
            ]
        )
        return users.indices.map { index in
            if let refusal = results[index] { return .failure(refusal) }
            return deleted[users[index].uid]
                ?? .failure(RPCError(.internal, "lost track of a user in a batch deletion"))
        }
    }

    /// Calls the delete hook for each user of a batch, a few at a time; answers the users the app did not answer
    /// 2xx for, with the error (none without a delete hook).
    private func callDeleteHooks(
        _ users: [UserOperation],
        reason: DeletionReason,
        options: CallOptions
    ) async -> [String: RPCError] {
        guard let hooks, hooks.calls(.deletion) else { return [:] }
        return await withTaskGroup(of: (String, RPCError?).self) { group in
            var refused: [String: RPCError] = [:]
            var pending = users[...]
            func startNext() {
                guard let user = pending.popFirst() else { return }
                group.addTask {
                    do {
                        try await hooks.deleting(
                            uid: user.uid,
                            operation: user.operationID,
                            reason: reason,
                            options: options
                        )
                        return (user.uid, nil)
                    } catch {
                        return (user.uid, error as? RPCError ?? RPCError(.cancelled, "\(error)"))
                    }
                }
            }
            for _ in 0..<Self.hookConcurrency { startNext() }
            while let (uid, error) = await group.next() {
                if let error { refused[uid] = error }
                startNext()
            }
            return refused
        }
    }

    /// Calls of the app's delete hook at once in a batch deletion.
    static let hookConcurrency = 8

    /// Whether the account a guest is merging into still exists (waits, throwing, while it is merging or deleting).
    private func targetIsLive(_ target: String, options: CallOptions) async throws -> Bool {
        let state: AccountState
        do {
            state = try await identity.call(IdentityMethods.getUser, IdentityUserRequest(uid: target), options: options)
                .state
        } catch let error as RPCError where error.status == IdentityStatus.userNotFound {
            return false
        }
        guard state.kind == .active else {
            // Not `unavailable`: the services answer, this one merge waits (cleanup goes on with the others).
            throw RPCError(
                .failedPrecondition,
                "the account the guest is being merged into is \(state.kind); the merge waits until it is active again"
            )
        }
        return true
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
}

/// What one step answered that the saga's result needs.
private enum StepOutcome: Sendable {
    case report(MergeReport)
    case documents(UInt64)
    case done
}

/// The calls of one saga's steps for one account.
private struct StepRunner: Sendable {
    let sagas: AccountSagas
    let state: AccountState
    let operation: String
    let options: CallOptions

    private var isMerge: Bool { state.kind == .merging }

    func run(_ step: Saga.Step) async throws -> StepOutcome {
        let uid = state.uid
        switch step {
        case .moveDocuments:
            let report = try await sagas.userData.call(
                UserDataMethods.merge,
                MergeDocumentsRequest(
                    fromUID: uid,
                    toUID: state.mergeInto ?? "",
                    op: operation,
                    policy: state.mergePolicy ?? .keepBoth
                ),
                options: options
            )
            FaultPoint.mergeAfterUserData.reached()
            return .report(report)
        case .moveCounters:
            _ = try await sagas.guestQuota.call(
                GuestQuotaMethods.merge,
                QuotaMergeRequest(fromUID: uid, toUID: state.mergeInto ?? "", op: operation),
                options: options
            )
            FaultPoint.mergeAfterGuestQuota.reached()
        case .deleteDocuments:
            let deleted = try await sagas.userData.call(
                UserDataMethods.deleteAll,
                DeleteAllDocumentsRequest(uid: uid),
                options: options
            )
            FaultPoint.deleteAfterUserData.reached()
            return .documents(deleted.deleted)
        case .deleteCounters:
            _ = try await sagas.guestQuota.call(
                GuestQuotaMethods.deleteAll,
                QuotaDeleteAllRequest(uid: uid),
                options: options
            )
            FaultPoint.deleteAfterGuestQuota.reached()
        case .recordDeletion:
            try await sagas.recorder.recordDeletion(
                uid: uid,
                operationID: operation,
                reason: isMerge ? .merge : state.deletionReason ?? .userRequest,
                options: options
            )
            (isMerge ? FaultPoint.mergeAfterRecord : .deleteAfterRecord).reached()
        case .callApp:
            guard let hooks = sagas.hooks else { return .done }
            if isMerge {
                try await hooks.merging(
                    guest: uid,
                    into: state.mergeInto ?? "",
                    operation: operation,
                    policy: state.mergePolicy ?? .keepBoth,
                    options: options
                )
            } else {
                try await hooks.deleting(
                    uid: uid,
                    operation: operation,
                    reason: state.deletionReason ?? .userRequest,
                    options: options
                )
            }
        case .finish:
            throw RPCError(.internal, "the finish step runs on its own")
        }
        return .done
    }

    /// The last step: identity removes the account, keeping `answer` in the same transaction.
    func finish(_ result: SagaResult, answer: RememberOperationAnswerRequest?) async throws {
        switch result {
        case .merged(let report):
            _ = try await sagas.identity.call(
                IdentityMethods.finishMerge,
                FinishMergeRequest(uid: state.uid, operationID: operation, report: report, answer: answer),
                options: options
            )
            FaultPoint.mergeAfterFinishMerge.reached()
        case .deleted:
            _ = try await sagas.identity.call(
                IdentityMethods.finishDelete,
                FinishDeleteRequest(uid: state.uid, operationID: operation, answer: answer),
                options: options
            )
            FaultPoint.deleteAfterFinishDelete.reached()
        }
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
