import Foundation
import FoyerAPI
import FoyerAccountOps
import FoyerRPC
import FoyerStorage
import SQLKit

extension IdentityCore {
    /// `beginMerge`: guest → `merging(into: account, op)`, signed out everywhere (`signOutEverywhere`). Repeating
    /// it with the same operation answers the same state. Refused unless the guest redeemed a conflict ticket for
    /// the account (the proof that whoever holds the guest also holds the account's credential).
    func beginMerge(_ request: BeginMergeRequest) async throws -> AccountState {
        let now = self.now
        let state = try await database.transaction { sql in
            guard let guest = try await UserRecords.load(sql, uid: request.guestUID, lock: true) else {
                throw IdentityError.userNotFound()
            }
            if guest.state == .merging, guest.operationID == request.operationID,
                guest.mergeInto == request.accountUID
            {
                return guest.accountState
            }
            guard guest.state == .active else { throw Self.busy(guest) }
            guard guest.isAnonymous else {
                throw IdentityError.guestRequired("only a guest can be merged into another account")
            }
            guard request.accountUID != request.guestUID else {
                throw IdentityError.invalidArgument("a guest cannot be merged into itself")
            }
            _ = try await UserRecords.requireActive(sql, uid: request.accountUID, lock: true)
            guard try await self.tickets.wasRedeemed(sql, holder: request.guestUID, account: request.accountUID) else {
                throw IdentityError.mergeNotAuthorized()
            }
            try await UserRecords.setState(
                sql,
                uid: guest.uid,
                state: .merging,
                mergeInto: request.accountUID,
                operationID: request.operationID,
                now: now
            )
            try await self.signOutEverywhere(sql, uid: guest.uid, now: now)
            return try await UserRecords.load(sql, uid: guest.uid)!.accountState
        }
        FaultPoint.identityAfterBeginMerge.reached()
        logger.info(
            "merge begun",
            metadata: [
                "user.uid": "\(request.guestUID)", "other.uid": "\(request.accountUID)",
                "operation.id": "\(request.operationID)",
            ]
        )
        return state
    }

    /// `finishMerge`: deletes the guest that is merging under this operation.
    func finishMerge(_ request: IdentityOperationRequest) async throws {
        try await finish(request, kind: .merging)
    }

    /// `finishMergeWithReport`: `finishMerge`, its `user.merged` event carrying the merge report's totals.
    func finishMergeWithReport(_ request: FinishMergeRequest) async throws {
        try await finish(request.operation, kind: .merging, report: request)
    }

    /// `beginDelete`: → `deleting(op)`, signed out everywhere (`signOutEverywhere`): from here no token of the user
    /// works, and the deletion can only go forward. With `idleBeforeMilliseconds` (the inactivity clean-up), only
    /// an active guest idle since before the cutoff is marked, checked in the same transaction. Only an active
    /// user may begin, or a guest `merging` into an account that no longer exists.
    func beginDelete(_ request: BeginDeleteRequest) async throws -> AccountState {
        let now = self.now
        let state = try await database.transaction { sql in
            if let refusal = try await self.markDeleting(sql, [request], now: now)[0] { throw refusal }
            return try await UserRecords.load(sql, uid: request.uid)!.accountState
        }
        FaultPoint.identityAfterBeginDelete.reached()
        logger.info(
            "deletion begun",
            metadata: ["user.uid": "\(request.uid)", "operation.id": "\(request.operationID)"]
        )
        return state
    }

    /// `beginDeleteBatch`: `beginDelete` of every request in one transaction, each answered on its own.
    func beginDeleteBatch(_ requests: [BeginDeleteRequest]) async throws -> [IdentityError?] {
        let now = self.now
        let refusals = try await database.transaction { sql in try await self.markDeleting(sql, requests, now: now) }
        FaultPoint.identityAfterBeginDelete.reached()
        logger.info(
            "deletions begun",
            metadata: ["batch.size": "\(requests.count)", "batch.refused": "\(refusals.count { $0 != nil })"]
        )
        return refusals
    }

    /// Marks the user of each request `deleting` under the request's operation (or finds it already is) and signs
    /// them out everywhere. Answers, per request, nil or why it was refused; a refusal
    /// changes nothing for that user.
    private func markDeleting(
        _ sql: any SQLDatabase,
        _ requests: [BeginDeleteRequest],
        now: Date
    ) async throws -> [IdentityError?] {
        var users = try await UserRecords.load(sql, uids: requests.map(\.uid), lock: true)
        var marked: [String] = []
        var refusals: [IdentityError?] = []
        for request in requests {
            guard let user = users[request.uid] else {
                refusals.append(IdentityError.userNotFound())
                continue
            }
            if user.state == .deleting, user.operationID == request.operationID {
                refusals.append(nil)
                continue
            }
            if user.state != .active {
                // A guest merging into an account that has since been deleted can never finish its merge: deleting
                // it is the way out (cleanup's recovery takes it).
                guard user.state == .merging, let target = user.mergeInto,
                    try await UserRecords.load(sql, uid: target) == nil
                else {
                    refusals.append(Self.busy(user))
                    continue
                }
            }
            if let cutoff = request.idleBeforeMilliseconds {
                guard user.isAnonymous, user.lastActivityAt < Date(wireMilliseconds: cutoff) else {
                    refusals.append(IdentityError.guestStillActive())
                    continue
                }
            }
            // Deleting an account while a guest is being merged into it would leave the documents the merge moves
            // in after the deletion under a uid that is gone. Merge targets are accounts with a credential, so
            // guests (the clean-up's batches) skip the check.
            if !user.isAnonymous, try await UserRecords.isMergeTarget(sql, uid: user.uid) {
                refusals.append(
                    IdentityError.operationConflict(
                        "a guest is being merged into this account; try again once the merge has finished"
                    )
                )
                continue
            }
            try await UserRecords.setState(
                sql,
                uid: user.uid,
                state: .deleting,
                mergeInto: nil,
                operationID: request.operationID,
                now: now
            )
            users[user.uid]?.state = .deleting
            users[user.uid]?.operationID = request.operationID
            marked.append(user.uid)
            refusals.append(nil)
        }
        if !marked.isEmpty {
            try await signOutEverywhere(sql, uids: marked, now: now)
        }
        return refusals
    }

    /// `finishDelete`: removes everything of the user that is deleting under this operation.
    func finishDelete(_ request: IdentityOperationRequest) async throws {
        try await finish(request, kind: .deleting)
    }

    /// `finishDeleteWithReason`: `finishDelete`, its `user.deleted` event carrying the reason.
    func finishDeleteWithReason(_ request: FinishDeleteRequest) async throws {
        try await finish(request.operation, kind: .deleting, reason: request.reason)
    }

    /// `finishDeleteBatch`: `finishDelete` of every request in one transaction, each answered on its own.
    func finishDeleteBatch(_ requests: [IdentityOperationRequest]) async throws -> [IdentityError?] {
        let now = self.now
        let refusals = try await database.transaction { sql in
            try await self.finish(sql, requests, kind: .deleting, now: now)
        }
        FaultPoint.identityAfterFinishDelete.reached()
        logger.info(
            "deletions finished",
            metadata: ["batch.size": "\(requests.count)", "batch.refused": "\(refusals.count { $0 != nil })"]
        )
        return refusals
    }

    private func finish(
        _ request: IdentityOperationRequest,
        kind: AccountStateKind,
        report: FinishMergeRequest? = nil,
        reason: DeletionReason? = nil
    ) async throws {
        let now = self.now
        try await database.transaction { sql in
            let refusals = try await self.finish(sql, [request], kind: kind, now: now, report: report, reason: reason)
            if let refusal = refusals[0] { throw refusal }
        }
        (kind == .merging ? FaultPoint.identityAfterFinishMerge : .identityAfterFinishDelete).reached()
        logger.info(
            "\(kind == .merging ? "merge" : "deletion") finished",
            metadata: ["operation.id": "\(request.operationID)"]
        )
    }

    /// Removes everything of each user that is `kind` under its request's operation, writes its event
    /// (`user.merged` with `report`, `user.deleted` with `reason`; `finishEvent`), and records the operations as
    /// finished. A user already gone is fine if its operation finished before (no second event). Answers, per
    /// request, nil or why it was refused.
    private func finish(
        _ sql: any SQLDatabase,
        _ requests: [IdentityOperationRequest],
        kind: AccountStateKind,
        now: Date,
        report: FinishMergeRequest? = nil,
        reason: DeletionReason? = nil
    ) async throws -> [IdentityError?] {
        let kindText = UserRecords.stateText(kind)
        let users = try await UserRecords.load(sql, uids: requests.map(\.uid), lock: true)
        var finishing: [String: String] = [:]
        var refusals: [IdentityError?] = []
        for request in requests {
            if let operation = finishing[request.uid] {
                refusals.append(
                    operation == request.operationID ? nil : Self.notUnder(request, kind: kind, state: kind)
                )
                continue
            }
            guard let user = users[request.uid] else {
                let finished = try await UserDeletion.isFinished(sql, kind: kindText, operationID: request.operationID)
                refusals.append(finished ? nil : IdentityError.userNotFound())
                continue
            }
            guard user.state == kind, user.operationID == request.operationID else {
                refusals.append(Self.notUnder(request, kind: kind, state: user.state))
                continue
            }
            finishing[user.uid] = request.operationID
            try await appendEvent(sql, Self.finishEvent(user, report: report, reason: reason), uid: user.uid, now: now)
            refusals.append(nil)
        }
        try await UserDeletion.deleteEverything(sql, uids: Array(finishing.keys))
        for operationID in Set(finishing.values) {
            try await UserDeletion.recordFinished(sql, kind: kindText, operationID: operationID, now: now)
        }
        return refusals
    }

    private static func notUnder(
        _ request: IdentityOperationRequest,
        kind: AccountStateKind,
        state: AccountStateKind
    ) -> IdentityError {
        IdentityError.operationConflict("the user is not \(kind) under this operation (it is \(state))")
    }

    /// `listStuckAccounts`.
    func listStuckAccounts(_ request: ListStuckAccountsRequest) async throws -> StuckAccounts {
        let cutoff = now.subtracting(.seconds(Int64(clamping: request.olderThanSeconds)))
        let users = try await database.withConnection { sql in
            try await sql.raw(
                """
                SELECT \(unsafeRaw: UserRecords.columns) FROM identity_users
                WHERE state IN ('merging', 'deleting') AND state_since < \(SQLTimestamp(cutoff))
                ORDER BY state_since, uid LIMIT \(bind: Int(request.limit))
                """
            ).all().map(UserRecords.record)
        }
        return StuckAccounts(accounts: users.map(\.accountState))
    }

    private static func busy(_ user: UserRecord) -> IdentityError {
        IdentityError.operationConflict(
            "the user is already \(user.state) under another operation (\(user.operationID ?? "-"))"
        )
    }
}
