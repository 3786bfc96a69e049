import Foundation
import FoyerAPI
import FoyerLifecycle
import FoyerRPC
import FoyerStorage
import SQLKit

/// The account lifecycle at identity: every move between phases is the state machine's decision
/// (`AccountPhase.decide`), applied in the transaction that loaded the user. `link` and `deleteAccount` are the
/// first step of the gateway's operations, `finishMerge` and `finishDelete` the last of the sagas (`Saga`).
extension IdentityCore {
    // MARK: The first step

    /// `link`: verifies the caller and attaches the credential; when it proves another account, answers the conflict
    /// (`fail`) or signs in to the account and begins the guest's merge or deletion (`begin`). A retry is answered
    /// where the first attempt got to (`progress`), or with the gateway's remembered answer.
    func link(_ request: LinkAccountRequest) async throws -> LinkStep {
        let operation = request.operation
        if let answer = try await rememberedAnswer(id: operation.answerID) { return .recalled(answer) }
        let expected: AccountStateKind = request.onConflict == .discard ? .deleting : .merging
        let caller: VerifiedAccessToken
        do {
            caller = try await verifyAccessToken(
                VerifyAccessTokenRequest(accessToken: operation.accessToken, requirement: operation.requirement)
            )
        } catch let refusal as IdentityError where refusal.code == .tokenRevoked {
            switch try await progress(of: operation, expected: expected) {
            case .continuing(let state): return .continuing(state)
            case .finished: return .finished
            case nil: throw refusal
            }
        }
        let ticket: String
        switch request.proof {
        case .ticket(let presented):
            ticket = presented
        case .credential(let credential):
            switch try await attach(credential, to: caller.uid, source: request.source) {
            case .session(let tokens):
                guard tokens.uid == caller.uid else {
                    // A sign-in email link signs in to its own account; it cannot be linked to another one.
                    throw IdentityError.invalidArgument(
                        "this credential signs in to another account and cannot be linked; use signIn"
                    )
                }
                return .linked(tokens, wasGuest: caller.isAnonymous)
            case .conflict(let details) where request.onConflict == .fail:
                return .conflict(details)
            case .conflict(let details):
                ticket = details.ticket
            }
        }
        guard request.onConflict != .fail else {
            throw IdentityError.invalidArgument("a conflict can only be resolved by merge or discard")
        }
        return try await begin(
            guest: caller.uid,
            ticket: ticket,
            choice: request.onConflict,
            policy: request.mergePolicy,
            operationID: operation.operationID
        )
    }

    /// `deleteAccount`: verifies the caller and marks it `deleting`; a sign-out (`guestOnly`) of a member revokes
    /// its session instead. A retry is answered as `link`'s.
    func deleteAccount(_ request: DeleteAccountRequest) async throws -> DeletionStep {
        let operation = request.operation
        if let answer = try await rememberedAnswer(id: operation.answerID) { return .recalled(answer) }
        let caller: VerifiedAccessToken
        do {
            caller = try await verifyAccessToken(
                VerifyAccessTokenRequest(accessToken: operation.accessToken, requirement: operation.requirement)
            )
        } catch let refusal as IdentityError where refusal.code == .tokenRevoked {
            switch try await progress(of: operation, expected: .deleting) {
            case .continuing(let state): return .continuing(state)
            case .finished: return .finished
            case nil: throw refusal
            }
        }
        let now = self.now
        let step = try await database.transaction { sql -> DeletionStep in
            guard let user = try await UserRecords.load(sql, uid: caller.uid, lock: true) else {
                throw IdentityError.userNotFound()
            }
            if request.guestOnly, user.phase == .member {
                _ = try await SessionRecords.revoke(sql, sessionID: caller.sessionID, uid: caller.uid, now: now)
                return .signedOut
            }
            let event = LifecycleEvent.beginDelete(
                operation: operation.operationID,
                reason: .userRequest,
                onlyIfIdle: false
            )
            return .begun(try await self.apply(event, to: user, sql, now: now))
        }
        if case .begun = step {
            FaultPoint.identityAfterBeginDelete.reached()
            logger.info("deletion begun", metadata: ["user.uid": "\(caller.uid)"])
        }
        return step
    }

    /// Where a retried operation stands when its token is refused as revoked (the first attempt's first step
    /// revoked it): `continuing` when the token's user is `expected` under this very operation, `finished` when the
    /// user is gone and this operation removed it, nil otherwise (the refusal stands).
    private func progress(of operation: CallerOperation, expected: AccountStateKind) async throws -> Progress? {
        guard let claims = try? await verifiedClaims(operation.accessToken, now: now) else { return nil }
        return try await database.withConnection { sql in
            guard let user = try await UserRecords.load(sql, uid: claims.subject) else {
                let finished = try await UserDeletion.isFinished(
                    sql,
                    kind: UserRecords.stateText(expected),
                    operationID: operation.operationID
                )
                return finished ? .finished : nil
            }
            guard user.state == expected, user.operationID == operation.operationID else { return nil }
            return .continuing(user.accountState)
        }
    }

    private enum Progress {
        case continuing(AccountState)
        case finished
    }

    /// Attaches a credential to `uid` (the single-credential calls `linkPassword`, `completeEmailLink`,
    /// `completeEmailCode`, `linkProvider`).
    private func attach(_ credential: Credential, to uid: String, source: String) async throws -> LinkAttempt {
        switch credential {
        case .password(let email, let password):
            try await linkPassword(LinkPasswordRequest(uid: uid, email: email, password: password, source: source))
        case .emailLink(let token, let verifier):
            try await completeEmailLink(CompleteEmailLinkRequest(token: token, verifier: verifier, uid: uid))
        case .emailCode(let email, let code):
            try await completeEmailCode(CompleteEmailCodeRequest(email: email, code: code, uid: uid))
        case .deviceKey:
            // A device key signs in to the guest that registered it; it proves nothing another account could take.
            throw IdentityError.invalidArgument("a device key is not linked: a guest registers it (registerDeviceKey)")
        case .idToken(let provider, let idToken, let rawNonce, let code):
            try await linkProvider(
                LinkProviderRequest(
                    uid: uid,
                    provider: provider,
                    idToken: idToken,
                    rawNonce: rawNonce,
                    authorizationCode: code
                )
            )
        }
    }

    /// Redeems the conflict ticket for `guest` and, in the same transaction, signs in to the account it names and
    /// moves the guest into its merge into that account (`merge`) or its deletion (`discard`): the proof and the
    /// point of no return are one commit.
    private func begin(
        guest: String,
        ticket text: String,
        choice: ConflictChoice,
        policy: MergePolicy,
        operationID: String
    ) async throws -> LinkStep {
        guard let ticket = SecretToken(text: text) else { throw ConflictTickets.invalid() }
        let now = self.now
        let step = try await database.transaction { sql -> LinkStep in
            let account = try await self.tickets.redeem(sql, ticket: ticket, holder: guest, now: now)
            guard let user = try await UserRecords.load(sql, uid: guest, lock: true) else {
                throw IdentityError.userNotFound()
            }
            let event: LifecycleEvent =
                choice == .merge
                ? .beginMerge(into: account, operation: operationID, policy: policy)
                : .beginDelete(operation: operationID, reason: .merge, onlyIfIdle: false)
            if choice == .discard, user.phase != .guest {
                throw IdentityError.guestRequired("only a guest can be discarded for another account")
            }
            let state = try await self.apply(event, to: user, sql, now: now)
            let target = try await UserRecords.requireActive(sql, uid: account, lock: true)
            _ = try await UserRecords.touchActivity(
                sql,
                uid: account,
                now: now,
                interval: self.configuration.activityRecordInterval
            )
            return .begun(account: try await self.startSession(sql, user: target, now: now), guest: state)
        }
        (choice == .merge ? FaultPoint.identityAfterBeginMerge : .identityAfterBeginDelete).reached()
        logger.info(
            choice == .merge ? "merge begun" : "discard begun",
            metadata: ["user.uid": "\(guest)", "operation.id": "\(operationID)"]
        )
        return step
    }

    // MARK: Beginning a deletion for an operator or cleanup

    /// `beginDelete`: → `deleting(op, reason)`, signed out everywhere. With `idleBeforeMilliseconds` (the inactivity
    /// clean-up), only an active guest idle since before the cutoff is marked.
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

    /// Marks the user of each request `deleting` under the request's operation (or finds it already is). Answers,
    /// per request, nil or why it was refused; a refusal changes nothing for that user.
    private func markDeleting(
        _ sql: any SQLDatabase,
        _ requests: [BeginDeleteRequest],
        now: Date
    ) async throws -> [IdentityError?] {
        let users = try await UserRecords.load(sql, uids: requests.map(\.uid), lock: true)
        var refusals: [IdentityError?] = []
        for request in requests {
            guard let user = users[request.uid] else {
                refusals.append(IdentityError.userNotFound())
                continue
            }
            let event = LifecycleEvent.beginDelete(
                operation: request.operationID,
                reason: request.reason,
                onlyIfIdle: request.idleBeforeMilliseconds != nil
            )
            let cutoff = request.idleBeforeMilliseconds.map(Date.init(wireMilliseconds:))
            do {
                _ = try await apply(event, to: user, sql, now: now, idleCutoff: cutoff)
                refusals.append(nil)
            } catch let refusal as IdentityError {
                refusals.append(refusal)
            }
        }
        return refusals
    }

    /// Applies the state machine's decision on `event` to `user` in the transaction `sql`: a move into a merge or a
    /// deletion sets the phase and signs the user out everywhere. Answers the user's state after it; throws the
    /// refusal.
    private func apply(
        _ event: LifecycleEvent,
        to user: UserRecord,
        _ sql: any SQLDatabase,
        now: Date,
        idleCutoff: Date? = nil
    ) async throws -> AccountState {
        let facts = SQLLifecycleFacts(sql: sql, idleCutoff: idleCutoff)
        switch try await user.phase.decide(event, uid: user.uid, facts: facts) {
        case .unchanged:
            return user.accountState
        case .move(let phase?):
            try await UserRecords.setPhase(sql, uid: user.uid, phase, now: now)
            try await signOutEverywhere(sql, uid: user.uid, now: now)
            return phase.state(of: user.uid, sinceMilliseconds: now.wireMilliseconds)
        case .move(nil):
            throw IdentityError.invalidArgument("a finish is applied by finishMerge or finishDelete")
        case .refuse(let refusal):
            throw Self.error(refusal)
        }
    }

    /// The wire status of a refusal of the state machine.
    private static func error(_ refusal: LifecycleRefusal) -> IdentityError {
        switch refusal {
        case .busy(let phase):
            .operationConflict("the user is already \(phase.kind) under another operation (\(phase.operation ?? "-"))")
        case .guestRequired: .guestRequired("only a guest can be merged into another account")
        case .mergeIntoItself: .invalidArgument("a guest cannot be merged into itself")
        case .targetNotFound: .userNotFound()
        case .targetUnavailable(let phase): .accountNotActive(phase.kind.description)
        case .stillActive: .guestStillActive()
        case .mergeTargetBusy:
            .operationConflict("a guest is being merged into this account; try again once the merge has finished")
        case .notUnder(_, let phase): .operationConflict("the user is not under this operation (it is \(phase.kind))")
        }
    }

    // MARK: The last step

    /// `finishMerge`: deletes the guest that is merging under this operation, with its `user.merged` event and the
    /// gateway's answer, in one transaction.
    func finishMerge(_ request: FinishMergeRequest) async throws {
        try await finish([request.operation], kind: .merging, report: request, answer: request.answer, throwing: true)
    }

    /// `finishDelete`: revokes the user's Apple token if identity keeps one, then removes everything of the user
    /// that is deleting under this operation, with its `user.deleted` event and the gateway's answer.
    func finishDelete(_ request: FinishDeleteRequest) async throws {
        try await finish([request.operation], kind: .deleting, answer: request.answer, throwing: true)
    }

    /// `finishDeleteBatch`: `finishDelete` of every request in one transaction, each answered on its own.
    func finishDeleteBatch(_ requests: [IdentityOperationRequest]) async throws -> [IdentityError?] {
        try await finish(requests, kind: .deleting)
    }

    @discardableResult
    private func finish(
        _ requests: [IdentityOperationRequest],
        kind: AccountStateKind,
        report: FinishMergeRequest? = nil,
        answer: RememberOperationAnswerRequest? = nil,
        throwing: Bool = false
    ) async throws -> [IdentityError?] {
        if kind == .deleting { try await revokeAppleTokens(requests.map(\.uid)) }
        let now = self.now
        let refusals = try await database.transaction { sql in
            let refusals = try await self.finish(sql, requests, kind: kind, now: now, report: report)
            if throwing, let refusal = refusals.first ?? nil { throw refusal }
            if let answer { try await Self.remember(sql, answer, now: now) }
            return refusals
        }
        (kind == .merging ? FaultPoint.identityAfterFinishMerge : .identityAfterFinishDelete).reached()
        logger.info(
            "\(kind == .merging ? "merge" : "deletion") finished",
            metadata: ["batch.size": "\(requests.count)", "batch.refused": "\(refusals.count { $0 != nil })"]
        )
        return refusals
    }

    /// Removes everything of each user that is `kind` under its request's operation, writes its event
    /// (`user.merged` with `report`, `user.deleted` with the reason it began with), and records the operations as
    /// finished. A user already gone is fine if its operation finished before (no second event). Answers, per
    /// request, nil or why it was refused.
    private func finish(
        _ sql: any SQLDatabase,
        _ requests: [IdentityOperationRequest],
        kind: AccountStateKind,
        now: Date,
        report: FinishMergeRequest?
    ) async throws -> [IdentityError?] {
        let kindText = UserRecords.stateText(kind)
        let users = try await UserRecords.load(sql, uids: requests.map(\.uid), lock: true)
        let facts = SQLLifecycleFacts(sql: sql, idleCutoff: nil)
        var finishing: [String: String] = [:]
        var refusals: [IdentityError?] = []
        for request in requests {
            if let operation = finishing[request.uid] {
                refusals.append(
                    operation == request.operationID
                        ? nil : .operationConflict("the user is finishing under another operation")
                )
                continue
            }
            guard let user = users[request.uid] else {
                let finished = try await UserDeletion.isFinished(sql, kind: kindText, operationID: request.operationID)
                refusals.append(finished ? nil : IdentityError.userNotFound())
                continue
            }
            let decision = try await user.phase.decide(
                .finish(operation: request.operationID),
                uid: user.uid,
                facts: facts
            )
            guard decision == .move(to: nil), user.state == kind else {
                refusals.append(
                    .operationConflict("the user is not \(kind) under this operation (it is \(user.state))")
                )
                continue
            }
            finishing[user.uid] = request.operationID
            try await appendEvent(sql, Self.finishEvent(user, report: report), uid: user.uid, now: now)
            refusals.append(nil)
        }
        try await UserDeletion.deleteEverything(sql, uids: Array(finishing.keys))
        for operationID in Set(finishing.values) {
            try await UserDeletion.recordFinished(sql, kind: kindText, operationID: operationID, now: now)
        }
        return refusals
    }

    // MARK: Recovery

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
}

/// What the state machine asks, answered from identity's tables in the deciding transaction.
private struct SQLLifecycleFacts: LifecycleFacts {
    let sql: any SQLDatabase
    let idleCutoff: Date?

    func phase(of uid: String) async throws -> AccountPhase? {
        try await UserRecords.load(sql, uid: uid)?.phase
    }

    func isMergeTarget(_ uid: String) async throws -> Bool {
        try await UserRecords.isMergeTarget(sql, uid: uid)
    }

    func isIdle(_ uid: String) async throws -> Bool {
        guard let idleCutoff, let user = try await UserRecords.load(sql, uid: uid) else { return false }
        return user.lastActivityAt < idleCutoff
    }
}

extension AccountPhase {
    /// The wire kind of the phase.
    var kind: AccountStateKind { state(of: "").kind }
}
