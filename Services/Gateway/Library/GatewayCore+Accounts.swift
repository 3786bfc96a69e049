import Foundation
import FoyerAPI
import FoyerCrypto
import FoyerLifecycle
import FoyerRPC
import FoyerWire
import NIOCore

extension GatewayCore {
    func registerAccounts(on router: inout RPCRouter) {
        serve(GatewayMethods.me, on: &router) { _, caller, options in
            async let user = self.identity.call(
                IdentityMethods.getUser,
                IdentityUserRequest(uid: caller.uid),
                options: options
            )
            async let usage = self.guestQuota.call(
                GuestQuotaMethods.usage,
                QuotaUsageRequest(uid: caller.uid),
                options: options
            )
            return MeResponse(user: try await user, usage: try await usage)
        }
        serve(GatewayMethods.quota, on: &router) { _, caller, options in
            try await self.guestQuota.call(
                GuestQuotaMethods.usage,
                QuotaUsageRequest(uid: caller.uid),
                options: options
            )
        }
        serve(GatewayMethods.checkFeature, on: &router) { request, caller, options in
            try await self.guestQuota.call(
                GuestQuotaMethods.feature,
                FeatureCheckRequest(uid: caller.uid, feature: request.feature),
                options: options
            )
        }
        router.register(GatewayMethods.link) { request, context in
            try await self.link(request, context: context)
        }
        router.register(GatewayMethods.resolveConflict) { request, context in
            try await self.resolveConflict(request, context: context)
        }
        router.register(GatewayMethods.deleteAccount) { request, context in
            // Deleting a member is a step-up action, as changing its password is: a stolen old session cannot.
            try await self.deleteAccount(request, guestOnly: false, requirement: .guestOrRecentSignIn, context: context)
            {
                DeletionReport(documentsDeleted: $0 ?? 0)
            }
        }
        router.register(GatewayMethods.signOut) { request, context in
            // A guest's sign-out deletes it with everything (it could never sign in again); a member's ends the session.
            try await self.deleteAccount(request, guestOnly: true, requirement: .any, context: context) {
                SignOutResponse(accountDeleted: $0 != nil)
            }
        }
    }

    // MARK: Link-or-merge

    /// Links the credential to the caller. New credential: the caller keeps its uid and becomes a member.
    /// Another account's credential, proven: merge or discard as the client chose, or with `fail` answer the
    /// conflict (the account and a ticket) and change nothing.
    func link(_ request: LinkRequest, context: RPCContext) async throws -> LinkResult {
        if case .deviceKey = request.credential {
            throw RPCError.invalidArgument("a device key is not linked: a guest registers it (registerDeviceKey)")
        }
        try admitRedemption(of: request.credential, context: context)
        // A digest of the credential, so no password is kept in memory with the answer.
        var credential = ByteBuffer()
        request.credential.encode(into: &credential)
        var fingerprint = ByteBuffer(bytes: SHA256.hash(credential.readableBytesView))
        fingerprint.writeMultipleIntegers(request.onConflict.rawValue, request.mergePolicy.rawValue)
        return try await resolving(
            request.operationID,
            token: request.accessToken,
            // Linking a credential to a member is a step-up action: a stolen old session cannot add a way in.
            requirement: .guestOrRecentSignIn,
            fingerprint: fingerprint,
            proof: .credential(request.credential),
            choice: request.onConflict,
            policy: request.mergePolicy,
            context: context
        )
    }

    /// Decides a conflict returned earlier (`onConflict: fail`) with its ticket.
    func resolveConflict(_ request: ResolveConflictRequest, context: RPCContext) async throws -> LinkResult {
        guard request.choice != .fail else {
            throw RPCError.invalidArgument("a conflict can only be resolved by merge or discard")
        }
        var fingerprint = ByteBuffer(string: request.ticket)
        fingerprint.writeMultipleIntegers(request.choice.rawValue, request.mergePolicy.rawValue)
        return try await resolving(
            request.operationID,
            token: request.accessToken,
            requirement: .any,
            fingerprint: fingerprint,
            proof: .ticket(request.ticket),
            choice: request.choice,
            policy: request.mergePolicy,
            context: context
        )
    }

    /// Link-or-merge in at most five calls: identity's `link` verifies the caller, attaches the credential or
    /// begins the merge or discard; then the saga's steps run side by side and identity's finish keeps the answer.
    /// A retry continues what its first attempt began (`continuing`) or answers what it finished.
    private func resolving(
        _ operationID: String,
        token: String,
        requirement: TokenRequirement,
        fingerprint: ByteBuffer,
        proof: LinkAccountRequest.Proof,
        choice: ConflictChoice,
        policy: MergePolicy,
        context: RPCContext
    ) async throws -> LinkResult {
        try await once(operationID, token: token, fingerprint: fingerprint, context: context) { operation in
            let options = CallOptions(deadline: context.deadline)
            let step: LinkStep
            do {
                step = try await self.identity.call(
                    IdentityMethods.link,
                    LinkAccountRequest(
                        operation: operation.request(token: token, requirement: requirement),
                        proof: proof,
                        onConflict: choice,
                        mergePolicy: policy,
                        source: self.sourceAddress(context)
                    ),
                    options: options
                )
            } catch let error as RPCError where error.status == IdentityStatus.guestRequired {
                throw RPCError(GatewayStatus.wrongAccountKind, error.message)
            }
            var credential: Credential?
            if case .credential(let proven) = proof { credential = proven }
            switch step {
            case .recalled(let answer):
                return .recalled(answer)
            case .linked(let session, let wasGuest):
                if wasGuest {
                    _ = try await self.guestQuota.call(
                        GuestQuotaMethods.changePlan,
                        ChangePlanRequest(uid: session.uid, plan: self.configuration.memberPlan),
                        options: options
                    )
                }
                return .answered(.linked(session))
            case .conflict(let details):
                return .answered(.conflict(details))
            case .begun(let account, let guest):
                (guest.kind == .merging ? FaultPoint.mergeAfterBeginMerge : .deleteAfterBeginDelete).reached()
                return .remembered(
                    try await self.finish(guest, session: account, operation: operation, begun: true, options)
                )
            case .continuing(let guest):
                context.logger.info("a retried link-or-merge continues", metadata: ["user.uid": "\(guest.uid)"])
                let session: SessionTokens
                do {
                    session = try await self.accountSession(credential, account: guest.mergeInto, options: options)
                } catch let error as RPCError where error.status == GatewayStatus.signInRequired {
                    // A one-time credential was spent by the first attempt: the merge still goes on (it may have
                    // waited on the app's hook), and the client signs in to the account after.
                    _ = try await self.sagas.resume(guest, options: options)
                    throw error
                }
                return .remembered(
                    try await self.finish(guest, session: session, operation: operation, begun: false, options)
                )
            case .finished:
                let session = try await self.accountSession(credential, account: nil, options: options)
                guard choice == .merge else { return .answered(.discarded(session)) }
                // user-data answers the report it recorded for this operation, whatever the policy asked now.
                let report = try await self.userData.call(
                    UserDataMethods.merge,
                    MergeDocumentsRequest(
                        fromUID: operation.caller.uid,
                        toUID: session.uid,
                        op: operation.scopedID,
                        policy: policy
                    ),
                    options: options
                )
                return .answered(.merged(session, report))
            }
        }
    }

    /// Runs the rest of a begun merge or discard (``AccountSagas``), identity keeping the answer with its last step.
    private func finish(
        _ guest: AccountState,
        session: SessionTokens,
        operation: OnceOperation,
        begun: Bool,
        _ options: CallOptions
    ) async throws -> LinkResult {
        let answer: AccountSagas.Answering = { result in
            try operation.record(of: Self.linkResult(result, session: session))
        }
        let result =
            begun
            ? try await sagas.run(Saga.of(guest.kind) ?? .merge, guest, answer: answer, options: options)
            : try await sagas.resume(guest, answer: answer, options: options)
        return Self.linkResult(result, session: session)
    }

    private static func linkResult(_ result: SagaResult, session: SessionTokens) -> LinkResult {
        switch result {
        case .merged(let report): .merged(session, report)
        case .deleted: .discarded(session)
        }
    }

    /// A session for the account a retried merge or discard went to, signed in with the retry's password: an email
    /// link, ID token or ticket was spent by the first attempt (`sign-in-required`).
    private func accountSession(
        _ credential: Credential?,
        account: String?,
        options: CallOptions
    ) async throws -> SessionTokens {
        let signInRequired = RPCError(GatewayStatus.signInRequired, "the operation is done; sign in to the account")
        guard case .password(let email, let password)? = credential else { throw signInRequired }
        let session = try await identity.call(
            IdentityMethods.signInWithPassword,
            PasswordSignInRequest(email: email, password: password, source: ""),
            options: options
        )
        guard account == nil || session.uid == account else { throw signInRequired }
        return session
    }

    // MARK: Delete-everything and sign-out

    /// Deletes the caller with everything it owns in at most five calls (three rounds): identity's
    /// `deleteAccount`, the saga's steps side by side, identity's finish keeping the answer. A sign-out
    /// (`guestOnly`) of a member ends its session instead. `answer` makes the client's answer of the documents
    /// deleted (nil when nothing was deleted).
    func deleteAccount<Answer: WireMessage>(
        _ request: OperationRequest,
        guestOnly: Bool,
        requirement: TokenRequirement,
        context: RPCContext,
        answer: @escaping @Sendable (UInt64?) -> Answer
    ) async throws -> Answer {
        let fingerprint = ByteBuffer(string: guestOnly ? "sign-out" : "delete")
        return try await once(
            request.operationID,
            token: request.accessToken,
            fingerprint: fingerprint,
            context: context
        ) { operation -> OnceOutcome<Answer> in
            let options = CallOptions(deadline: context.deadline)
            let step = try await self.identity.call(
                IdentityMethods.deleteAccount,
                DeleteAccountRequest(
                    operation: operation.request(token: request.accessToken, requirement: requirement),
                    guestOnly: guestOnly
                ),
                options: options
            )
            let record: AccountSagas.Answering = { result in
                guard case .deleted(let documents) = result else { return nil }
                return try operation.record(of: answer(documents))
            }
            let result: SagaResult
            switch step {
            case .recalled(let remembered): return .recalled(remembered)
            case .signedOut: return .answered(answer(nil))
            case .finished: return .answered(answer(0))
            case .begun(let state):
                FaultPoint.deleteAfterBeginDelete.reached()
                result = try await self.sagas.run(.deletion, state, answer: record, options: options)
            case .continuing(let state):
                context.logger.info("a retried deletion continues", metadata: ["user.uid": "\(state.uid)"])
                result = try await self.sagas.resume(state, answer: record, options: options)
            }
            guard case .deleted(let documents) = result else {
                throw RPCError(.internal, "a deletion answered a merge")
            }
            return .remembered(answer(documents))
        }
    }

    /// The services key merges and deletions by operation id alone, and clients choose their ids: the gateway
    /// scopes each to its user (a hash, so it stays short and carries no uid), so two users' "op-1" never meet.
    func scopedOperation(_ operationID: String, uid: String) -> String {
        "gw-" + QuotaKeys.hex(uid + "\u{0}" + operationID).prefix(40)
    }
}
