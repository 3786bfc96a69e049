import Foundation
import FoyerAPI
import FoyerRPC
import FoyerStorage
import SQLKit

extension IdentityCore {
    /// `beginMerge`: guest → `merging(into: account, op)`, its sessions revoked and its not-before moved. Repeating
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
                throw RPCError(IdentityStatus.guestRequired, "only a guest can be merged into another account")
            }
            guard request.accountUID != request.guestUID else {
                throw RPCError(.invalidArgument, "a guest cannot be merged into itself")
            }
            _ = try await UserRecords.requireActive(sql, uid: request.accountUID, lock: true)
            guard try await self.tickets.wasRedeemed(sql, holder: request.guestUID, account: request.accountUID) else {
                throw RPCError(
                    IdentityStatus.mergeNotAuthorized,
                    "no redeemed conflict ticket binds this guest to the account"
                )
            }
            try await UserRecords.setState(
                sql,
                uid: guest.uid,
                state: .merging,
                mergeInto: request.accountUID,
                operationID: request.operationID,
                now: now
            )
            try await SessionRecords.revokeAll(sql, uid: guest.uid, now: now)
            try await UserRecords.moveNotBefore(sql, uid: guest.uid, now: now)
            return try await UserRecords.load(sql, uid: guest.uid)!.accountState
        }
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

    /// `beginDelete`: → `deleting(op)`, every session revoked, not-before moved: from here no token of the user
    /// works, and the deletion can only go forward. With `idleBeforeMilliseconds` (the inactivity clean-up), only
    /// an active guest idle since before the cutoff is marked, checked in the same transaction.
    func beginDelete(_ request: BeginDeleteRequest) async throws -> AccountState {
        let now = self.now
        let state = try await database.transaction { sql in
            guard let user = try await UserRecords.load(sql, uid: request.uid, lock: true) else {
                throw IdentityError.userNotFound()
            }
            if user.state == .deleting, user.operationID == request.operationID { return user.accountState }
            guard user.state == .active else { throw Self.busy(user) }
            if let cutoff = request.idleBeforeMilliseconds {
                guard user.isAnonymous, user.lastActivityAt < Date(wireMilliseconds: cutoff) else {
                    throw RPCError(IdentityStatus.guestStillActive, "the user is not an idle guest")
                }
            }
            try await UserRecords.setState(
                sql,
                uid: user.uid,
                state: .deleting,
                mergeInto: nil,
                operationID: request.operationID,
                now: now
            )
            try await SessionRecords.revokeAll(sql, uid: user.uid, now: now)
            try await UserRecords.moveNotBefore(sql, uid: user.uid, now: now)
            return try await UserRecords.load(sql, uid: user.uid)!.accountState
        }
        logger.info(
            "deletion begun",
            metadata: ["user.uid": "\(request.uid)", "operation.id": "\(request.operationID)"]
        )
        return state
    }

    /// `finishDelete`: removes everything of the user that is deleting under this operation.
    func finishDelete(_ request: IdentityOperationRequest) async throws {
        try await finish(request, kind: .deleting)
    }

    private func finish(_ request: IdentityOperationRequest, kind: AccountStateKind) async throws {
        let now = self.now
        let kindText = UserRecords.stateText(kind)
        try await database.transaction { sql in
            guard let user = try await UserRecords.load(sql, uid: request.uid, lock: true) else {
                guard try await UserDeletion.isFinished(sql, kind: kindText, operationID: request.operationID) else {
                    throw IdentityError.userNotFound()
                }
                return
            }
            guard user.state == kind, user.operationID == request.operationID else {
                throw RPCError(
                    IdentityStatus.operationConflict,
                    "the user is not \(kind) under this operation (it is \(user.state))"
                )
            }
            try await UserDeletion.deleteEverything(sql, uid: user.uid)
            try await UserDeletion.recordFinished(sql, kind: kindText, operationID: request.operationID, now: now)
        }
        logger.info(
            "\(kind == .merging ? "merge" : "deletion") finished",
            metadata: ["operation.id": "\(request.operationID)"]
        )
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

    private static func busy(_ user: UserRecord) -> RPCError {
        RPCError(
            IdentityStatus.operationConflict,
            "the user is already \(user.state) under another operation (\(user.operationID ?? "-"))"
        )
    }
}
